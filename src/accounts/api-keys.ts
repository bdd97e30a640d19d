/** API keys (contract section 2): created for an account, shown once, stored as a hash, revocable. */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Clock, Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { NotFound } from "../shared/errors.ts"
import { environmentOf, generateApiKey, hashApiKey, prefixOf } from "./api-key.ts"
import { Plan } from "../entitlements/plan.ts"
import { ApiScope, type KeyEnvironment, type Principal } from "./principal.ts"
import { column, TimestampColumn } from "../shared/rows.ts"
import { ApiKey } from "./api-key-resource.ts"

export interface NewApiKey {
  readonly accountId: string
  readonly name: string | null
  /** The member who made it in the dashboard; null for the operator's. */
  readonly createdByMemberId: string | null
  readonly scopes: ReadonlyArray<ApiScope>
  readonly environment: KeyEnvironment
  readonly expiresAt: Date | null
}

/** How often a key's `lastUsedAt` may be written. */
const LAST_USED_RESOLUTION_MS = 60_000

/** A row of `api_keys` (its listed columns) decoded into an `ApiKey`. */
const ApiKeyRow = Schema.Struct({
  ...ApiKey.fields,
  expiresAt: column(Schema.NullOr(TimestampColumn), "expires_at"),
  createdAt: column(TimestampColumn, "created_at"),
  lastUsedAt: column(Schema.NullOr(TimestampColumn), "last_used_at"),
  revokedAt: column(Schema.NullOr(TimestampColumn), "revoked_at")
})
const toApiKey = (row: unknown) => Effect.map(Schema.decodeUnknown(ApiKeyRow)(row), (fields) => new ApiKey(fields))

/** What authenticating a key reads: the key's account, plan, scopes and whether it still works. */
const Credential = Schema.Struct({
  keyId: column(Schema.UUID, "id"),
  accountId: column(Schema.UUID, "account_id"),
  plan: Plan,
  scopes: Schema.Array(ApiScope),
  expiresAt: column(Schema.NullOr(Schema.DateFromSelf), "expires_at"),
  revokedAt: column(Schema.NullOr(Schema.DateFromSelf), "revoked_at")
})

const KEY_COLUMNS_TEXT = "id, name, prefix, scopes, environment, expires_at, created_at, last_used_at, revoked_at"

export class ApiKeys extends Effect.Service<ApiKeys>()("pressroom/ApiKeys", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const KEY_COLUMNS = sql.literal(KEY_COLUMNS_TEXT)
    const credentialOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Credential,
      execute: (secretSha256) =>
        sql`
          select k.id, k.account_id, a.plan, k.scopes, k.expires_at, k.revoked_at
          from api_keys k join accounts a on a.id = k.account_id
          where k.secret_sha256 = ${secretSha256}`
    })

    /** A new key; `secret` is the only copy of the key there will ever be. */
    const create = (key: NewApiKey): Effect.Effect<{ readonly key: ApiKey; readonly secret: string }> => {
      const secret = generateApiKey(key.environment)
      return sql`
        insert into api_keys (id, account_id, name, created_by_member_id, prefix, secret_sha256, scopes, environment, expires_at)
        values (${randomUUID()}, ${key.accountId}, ${key.name}, ${key.createdByMemberId}, ${prefixOf(secret)}, ${hashApiKey(secret)},
                ${key.scopes}::text[], ${key.environment}, ${key.expiresAt})
        returning ${KEY_COLUMNS}`.pipe(
        Effect.flatMap(([row]) => toApiKey(row)),
        Effect.map((key) => ({ key, secret })),
        Effect.orDie
      )
    }

    /**
     * Revokes the key `id` from now on; revoking it again changes nothing (it keeps its first
     * `revokedAt`, and who revoked it then). With `accountId`, only a key of that account (another's
     * is a 404); `revokedByMemberId` is the member who revoked it in the dashboard, null for the operator.
     */
    const revoke = (id: string, accountId?: string, revokedByMemberId: string | null = null): Effect.Effect<ApiKey, NotFound> =>
      sql`
        update api_keys set
          revoked_by_member_id = case when revoked_at is null then ${revokedByMemberId}::uuid else revoked_by_member_id end,
          revoked_at = coalesce(revoked_at, now())
        where id = ${id} ${accountId === undefined ? sql`` : sql`and account_id = ${accountId}`}
        returning ${KEY_COLUMNS}`.pipe(
        Effect.flatMap(([row]) => (row ? Effect.asSome(toApiKey(row)) : Effect.succeedNone)),
        Effect.orDie,
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(new NotFound({ resource: "key" })), onSome: Effect.succeed }))
      )

    /** Every key of `accountId`, newest first (an account has a handful: no pages). */
    const list = (accountId: string): Effect.Effect<ReadonlyArray<ApiKey>> =>
      sql`select ${KEY_COLUMNS} from api_keys where account_id = ${accountId} order by created_at desc, id`.pipe(
        Effect.flatMap(Effect.forEach(toApiKey)),
        Effect.orDie
      )

    /**
     * Records that key `keyId` was used, off the request's path (a fiber of its own, whose failure
     * is only logged) and at most once a minute per key: this process skips the statement within
     * the minute, and the statement skips a row written within the minute by another process.
     */
    const lastWritten = new Map<string, number>()
    const noteUse = (keyId: string, now: number): Effect.Effect<void> => {
      if (now - (lastWritten.get(keyId) ?? 0) < LAST_USED_RESOLUTION_MS) return Effect.void
      lastWritten.set(keyId, now)
      return sql`
        update api_keys set last_used_at = now()
        where id = ${keyId} and (last_used_at is null or last_used_at < now() - interval '1 minute')`.pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("could not record a key's last use", cause)),
        Effect.forkDaemon,
        Effect.asVoid
      )
    }

    /**
     * The principal of `presented` when it is a well-formed key of `environment` that exists, has
     * not expired and is not revoked; none otherwise, without saying which (contract section 2).
     * The key is found by its hash through the unique index; the environment is part of the hashed
     * string, so a stored key cannot change environment.
     */
    const authenticate = (presented: string, environment: KeyEnvironment): Effect.Effect<Option.Option<Principal>> =>
      Effect.gen(function* () {
        if (environmentOf(presented) !== environment) return Option.none()
        const found = yield* Effect.orDie(credentialOf(hashApiKey(presented)))
        const now = yield* Clock.currentTimeMillis
        if (Option.isNone(found)) return Option.none()
        const { accountId, expiresAt, keyId, plan, revokedAt, scopes } = found.value
        if (revokedAt !== null || (expiresAt !== null && expiresAt.getTime() <= now)) return Option.none()
        yield* noteUse(keyId, now)
        return Option.some({ accountId, actor: { kind: "key", keyId }, plan, scopes: new Set(scopes) })
      })

    return { create, revoke, list, authenticate } as const
  })
}) {}
