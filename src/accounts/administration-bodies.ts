/**
 * The request and response bodies of the operators' operations (contract section 9), shared by the
 * admin API (api.ts), the `pressroom accounts|keys|credits` commands and the typed client; the
 * operations themselves are administration.ts's. Schemas and data only, so that the API definition
 * loads no database code.
 */
import { Schema } from "effect"
import { MAX_PACKS_PER_PURCHASE } from "../entitlements/allowance.ts"
import { Usage } from "../entitlements/entitlement.ts"
import { Plan } from "../entitlements/plan.ts"
import { oneOf, strict } from "../shared/request-values.ts"
import { IsoDateTime } from "../shared/timestamp.ts"
import { Account } from "./account.ts"
import { ApiKey } from "./api-key-resource.ts"
import { ApiScope, KeyEnvironment } from "./principal.ts"

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
  name: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)))).annotations({
    description: "what the key is for, to tell keys apart in lists; null (or absent) for none"
  }),
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
export const KeyList = Schema.Struct({ keys: Schema.Array(ApiKey) }).annotations({ identifier: "KeyList" })
export const KeyRevoked = Schema.Struct({ key: ApiKey }).annotations({ identifier: "KeyRevoked" })
export const CreditPacksAdded = Schema.Struct({ usage: Usage }).annotations({ identifier: "CreditPacksAdded" })
