/** API keys (contract section 2): created for an account, shown once, stored as a hash, revocable. */
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { NotFound } from "../shared/errors.ts"
import { environmentOf, generateApiKey, hashApiKey, prefixOf } from "./api-key.ts"
import type { Plan } from "../entitlements/plan.ts"
import { ApiScope, KeyEnvironment, type Principal } from "./principal.ts"
import { Timestamp } from "../shared/timestamp.ts"

/** A key as operators see it: everything but the secret. */
export class ApiKey extends Schema.Class<ApiKey>("ApiKey")({
  id: Schema.UUID,
  prefix: Schema.String.annotations({ description: "the key's first characters, to recognise it by" }),
  scopes: Schema.Array(ApiScope),
  environment: KeyEnvironment,
  expiresAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp,
  revokedAt: Schema.NullOr(Timestamp)
}) {}

export interface NewApiKey {
  readonly accountId: string
  readonly scopes: ReadonlyArray<ApiScope>
  readonly environment: KeyEnvironment
  readonly expiresAt: Date | null
}

interface ApiKeyRow {
  readonly id: string
  readonly prefix: string
  readonly scopes: ReadonlyArray<ApiScope>
  readonly environment: KeyEnvironment
  readonly expires_at: Date | null
  readonly created_at: Date
  readonly revoked_at: Date | null
}

const toApiKey = (row: ApiKeyRow) =>
  new ApiKey({
    id: row.id,
    prefix: row.prefix,
    scopes: row.scopes,
    environment: row.environment,
    expiresAt: row.expires_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null
  })

export class ApiKeys extends Effect.Service<ApiKeys>()("pressroom/ApiKeys", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** A new key; `secret` is the only copy of the key there will ever be. */
    const create = (key: NewApiKey): Effect.Effect<{ readonly key: ApiKey; readonly secret: string }> => {
      const secret = generateApiKey(key.environment)
      return sql<ApiKeyRow>`
        insert into api_keys (id, account_id, prefix, secret_sha256, scopes, environment, expires_at)
        values (${randomUUID()}, ${key.accountId}, ${prefixOf(secret)}, ${hashApiKey(secret)}, ${key.scopes}::text[],
                ${key.environment}, ${key.expiresAt})
        returning id, prefix, scopes, environment, expires_at, created_at, revoked_at`.pipe(
        Effect.map((rows) => ({ key: toApiKey(rows[0]!), secret })),
        Effect.orDie
      )
    }

    /** Revokes the key `id` from now on; revoking it again changes nothing (it keeps its first `revokedAt`). */
    const revoke = (id: string): Effect.Effect<ApiKey, NotFound> =>
      sql<ApiKeyRow>`
        update api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${id}
        returning id, prefix, scopes, environment, expires_at, created_at, revoked_at`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => (rows[0] ? Effect.succeed(toApiKey(rows[0])) : Effect.fail(new NotFound({ resource: "key" }))))
      )

    /**
     * The principal of `presented` when it is a well-formed key of `environment` that exists, has
     * not expired and is not revoked; none otherwise, without saying which (contract section 2).
     * The key is found by its hash through the unique index; the environment is part of the hashed
     * string, so a stored key cannot change environment.
     */
    const authenticate = (presented: string, environment: KeyEnvironment): Effect.Effect<Option.Option<Principal>> =>
      Effect.gen(function* () {
        if (environmentOf(presented) !== environment) return Option.none()
        const rows = yield* sql<{
          id: string
          account_id: string
          plan: Plan
          scopes: ReadonlyArray<ApiScope>
          expires_at: Date | null
          revoked_at: Date | null
        }>`
          select k.id, k.account_id, a.plan, k.scopes, k.expires_at, k.revoked_at
          from api_keys k join accounts a on a.id = k.account_id
          where k.secret_sha256 = ${hashApiKey(presented)}`.pipe(Effect.orDie)
        const now = yield* Clock.currentTimeMillis
        const row = rows[0]
        if (!row || row.revoked_at !== null || (row.expires_at !== null && row.expires_at.getTime() <= now)) return Option.none()
        return Option.some({ accountId: row.account_id, keyId: row.id, plan: row.plan, scopes: new Set(row.scopes) })
      })

    return { create, revoke, authenticate } as const
  })
}) {}
