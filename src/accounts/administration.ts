/**
 * The operators' operations (contract section 9): accounts, keys and credit packs, with their
 * request and response bodies. One implementation behind both the admin API (api.ts) and the
 * `pressroom accounts|keys|credits` commands, which decode their flags with the same request
 * schemas and print the same responses, so both interfaces accept and say the same. (The CLI
 * imports them from here rather than from api.ts, which would load the HTTP API into a command.)
 *
 * Shape is checked by the schemas (400: wrong type, unknown property, a length or range, a
 * malformed timestamp); plan, scope and environment names are content, checked by the service
 * (422), as the contract treats unknown template and locale names, and so is an account name with a
 * NUL or an unpaired surrogate, which the database cannot keep as sent. Each still lists its values in
 * the OpenAPI document.
 */
import { Clock, Effect, Schema } from "effect"
import { MAX_PACKS_PER_PURCHASE } from "../entitlements/allowance.ts"
import { Usage } from "../entitlements/entitlement.ts"
import { Ledger } from "../entitlements/ledger.ts"
import { Plan } from "../entitlements/plan.ts"
import { InvalidRequest, type NotFound } from "../shared/errors.ts"
import { decodeContent, oneOf, strict } from "../shared/request-values.ts"
import { excerpt, StoredText } from "../shared/text.ts"
import { IsoDateTime } from "../shared/timestamp.ts"
import { Account, Accounts } from "./account.ts"
import { ApiKey, ApiKeys } from "./api-keys.ts"
import { keyEnvironmentConfig } from "./config.ts"
import { ALL_SCOPES, ApiScope, KeyEnvironment } from "./principal.ts"

/** A custom allowance beyond this is a typo, not a contract. */
const MAX_MONTHLY_UNITS = 1_000_000

export const CreateAccountRequest = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  plan: Schema.propertySignature(oneOf(Plan.literals)).annotations({
    description: "units per calendar month: free 25, monthly 500, yearly 1000, credits 0, admin unlimited"
  }),
  monthlyUnits: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.between(0, MAX_MONTHLY_UNITS)))).annotations({
    description: "a custom monthly allowance in place of the plan's; null or absent for the plan's"
  })
}).annotations({ identifier: "CreateAccountRequest", ...strict })
export type CreateAccountRequest = typeof CreateAccountRequest.Type

export const CreateKeyRequest = Schema.Struct({
  scopes: Schema.optional(Schema.Array(oneOf(ApiScope.literals))).annotations({ description: "the key's scopes; absent for every scope" }),
  environment: Schema.optional(oneOf(KeyEnvironment.literals)).annotations({
    description: "pk_live_ or pk_test_; absent for the environment this server accepts (PRESSROOM_KEY_ENVIRONMENT)"
  }),
  expiresAt: Schema.optional(Schema.NullOr(IsoDateTime)).annotations({
    description: "when the key stops working: a future instant, or null (or absent) for never"
  })
}).annotations({ identifier: "CreateKeyRequest", ...strict })
export type CreateKeyRequest = typeof CreateKeyRequest.Type

export const AddCreditPacksRequest = Schema.Struct({
  packs: Schema.propertySignature(Schema.Int.pipe(Schema.between(1, MAX_PACKS_PER_PURCHASE))).annotations({
    description: "packs of 250 units each, which never expire"
  })
}).annotations({ identifier: "AddCreditPacksRequest", ...strict })
export type AddCreditPacksRequest = typeof AddCreditPacksRequest.Type

export const AccountCreated = Schema.Struct({ account: Account }).annotations({ identifier: "AccountCreated" })
export const AccountDetail = Schema.Struct({ account: Account, usage: Usage }).annotations({ identifier: "AccountDetail" })
export const KeyCreated = Schema.Struct({
  key: ApiKey,
  secret: Schema.String.annotations({ description: "the API key itself, shown this once: only its hash is kept" })
}).annotations({ identifier: "KeyCreated" })
export const KeyRevoked = Schema.Struct({ key: ApiKey }).annotations({ identifier: "KeyRevoked" })
export const CreditPacksAdded = Schema.Struct({ usage: Usage }).annotations({ identifier: "CreditPacksAdded" })

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

    const createKey = (accountId: string, request: CreateKeyRequest): Effect.Effect<typeof KeyCreated.Type, InvalidRequest | NotFound> =>
      Effect.gen(function* () {
        const account = yield* accounts.find(accountId)
        const scopes = yield* scopesOf(request.scopes)
        const environment =
          request.environment === undefined ? defaultEnvironment : yield* named(KeyEnvironment, "environment", request.environment)
        const expiresAt = request.expiresAt ? new Date(request.expiresAt) : null
        if (expiresAt !== null && expiresAt.getTime() <= (yield* Clock.currentTimeMillis)) {
          return yield* Effect.fail(InvalidRequest.unprocessable("expiresAt must be in the future", "expiresAt"))
        }
        return yield* keys.create({ accountId: account.id, scopes, environment, expiresAt })
      })

    const revokeKey = (keyId: string): Effect.Effect<typeof KeyRevoked.Type, NotFound> => Effect.map(keys.revoke(keyId), (key) => ({ key }))

    const addCreditPacks = (accountId: string, packs: number): Effect.Effect<typeof CreditPacksAdded.Type, InvalidRequest | NotFound> =>
      Effect.map(ledger.addCreditPacks(accountId, packs), (usage) => ({ usage }))

    return { createAccount, describeAccount, createKey, revokeKey, addCreditPacks } as const
  }),
  dependencies: [Accounts.Default, ApiKeys.Default, Ledger.Default]
}) {}
