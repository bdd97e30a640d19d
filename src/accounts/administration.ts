/**
 * The operators' operations (contract section 9): accounts, keys and credit packs. One
 * implementation behind both the admin API (api.ts) and the `pressroom accounts|keys|credits`
 * commands, which decode their flags with the same request schemas (administration-bodies.ts) and
 * print the same responses, so both interfaces accept and say the same. (The CLI imports the bodies
 * from there rather than from api.ts, which would load the HTTP API into a command.)
 *
 * Shape is checked by the schemas (400: wrong type, unknown property, a length or range, a
 * malformed timestamp); plan, scope and environment names are content, checked by the service
 * (422), as the contract treats unknown template and locale names, and so is an account name with a
 * NUL or an unpaired surrogate, which the database cannot keep as sent. Each still lists its values in
 * the OpenAPI document.
 */
import { Clock, Effect, Schema } from "effect"
import { Ledger } from "../entitlements/ledger.ts"
import { Plan } from "../entitlements/plan.ts"
import { InvalidRequest, type NotFound } from "../shared/errors.ts"
import { decodeContent } from "../shared/request-values.ts"
import { excerpt, StoredText } from "../shared/text.ts"
import { Accounts } from "./accounts.ts"
import { ApiKeys } from "./api-keys.ts"
import type {
  AccountCreated,
  AccountDetail,
  CreateAccountRequest,
  CreateKeyRequest,
  CreditPacksAdded,
  KeyCreated,
  KeyList,
  KeyRevoked
} from "./administration-bodies.ts"
import { keyEnvironmentConfig } from "./config.ts"
import { ALL_SCOPES, ApiScope, KeyEnvironment } from "./principal.ts"

/** `value` when it is one of `schema`'s names, else 422 naming the accepted ones. */
const named = <L extends readonly [string, ...Array<string>]>(
  schema: Schema.Literal<L>,
  what: string,
  value: string
): Effect.Effect<L[number], InvalidRequest> =>
  Schema.is(schema)(value)
    ? Effect.succeed(value)
    : Effect.fail(InvalidRequest.unprocessable(`unknown ${what} '${excerpt(value, 100)}'; one of ${schema.literals.join(", ")}`, what))

/** The scopes asked for, each once, in the canonical order; every scope when none are named. */
const scopesOf = (requested: ReadonlyArray<string> | undefined): Effect.Effect<ReadonlyArray<ApiScope>, InvalidRequest> => {
  if (requested === undefined) return Effect.succeed(ALL_SCOPES)
  if (requested.length === 0)
    return Effect.fail(InvalidRequest.unprocessable("a key needs at least one scope; omit scopes for all of them", "scopes"))
  return Effect.map(
    Effect.forEach(requested, (scope) => named(ApiScope, "scope", scope)),
    (scopes) => ALL_SCOPES.filter((scope) => scopes.includes(scope))
  )
}

export class AccountAdministration extends Effect.Service<AccountAdministration>()("pressroom/AccountAdministration", {
  effect: Effect.gen(function* () {
    const accounts = yield* Accounts
    const keys = yield* ApiKeys
    const ledger = yield* Ledger
    // A key that names no environment works on this deployment.
    const defaultEnvironment = yield* keyEnvironmentConfig

    const createAccount = (request: CreateAccountRequest): Effect.Effect<typeof AccountCreated.Type, InvalidRequest> =>
      Effect.gen(function* () {
        const name = yield* decodeContent(StoredText, request.name, "name")
        const plan = yield* named(Plan, "plan", request.plan)
        return { account: yield* accounts.create({ name, plan, monthlyUnits: request.monthlyUnits ?? null }) }
      })

    const describeAccount = (accountId: string): Effect.Effect<typeof AccountDetail.Type, NotFound> =>
      Effect.gen(function* () {
        const account = yield* accounts.find(accountId)
        return { account, usage: yield* ledger.usage(account.id) }
      })

    /** A new key of `accountId`, made by the operator or, in the dashboard, by the member `createdByMemberId`. */
    const createKey = (
      accountId: string,
      request: CreateKeyRequest,
      createdByMemberId: string | null = null
    ): Effect.Effect<typeof KeyCreated.Type, InvalidRequest | NotFound> =>
      Effect.gen(function* () {
        const account = yield* accounts.find(accountId)
        const name = request.name ? yield* decodeContent(StoredText, request.name, "name") : null
        const scopes = yield* scopesOf(request.scopes)
        const environment =
          request.environment === undefined ? defaultEnvironment : yield* named(KeyEnvironment, "environment", request.environment)
        const expiresAt = request.expiresAt ? new Date(request.expiresAt) : null
        if (expiresAt !== null && expiresAt.getTime() <= (yield* Clock.currentTimeMillis)) {
          return yield* Effect.fail(InvalidRequest.unprocessable("expiresAt must be in the future", "expiresAt"))
        }
        return yield* keys.create({ accountId: account.id, name, createdByMemberId, scopes, environment, expiresAt })
      })

    const listKeys = (accountId: string): Effect.Effect<typeof KeyList.Type, NotFound> =>
      Effect.flatMap(accounts.find(accountId), (account) => Effect.map(keys.list(account.id), (keys) => ({ keys })))

    /**
     * Revokes `keyId`, by the operator or, in the dashboard, by the member `revokedByMemberId`, who
     * may revoke only a key of their account `accountId`.
     */
    const revokeKey = (
      keyId: string,
      accountId?: string,
      revokedByMemberId: string | null = null
    ): Effect.Effect<typeof KeyRevoked.Type, NotFound> => Effect.map(keys.revoke(keyId, accountId, revokedByMemberId), (key) => ({ key }))

    const addCreditPacks = (accountId: string, packs: number): Effect.Effect<typeof CreditPacksAdded.Type, InvalidRequest | NotFound> =>
      Effect.map(ledger.addCreditPacks(accountId, packs), (usage) => ({ usage }))

    return { createAccount, describeAccount, createKey, listKeys, revokeKey, addCreditPacks } as const
  }),
  dependencies: [Accounts.Default, ApiKeys.Default, Ledger.Default]
}) {}
