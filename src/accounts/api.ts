/**
 * The operators' admin API (contract section 9), behind the admin token: its endpoints and bodies.
 * When `PRESSROOM_ADMIN_TOKEN` is unset every route here answers 404, as if the API did not exist.
 * The CLI decodes its flags with the same request schemas and prints the same responses, so both
 * interfaces accept and say the same.
 *
 * Shape is checked here (400: wrong type, unknown property, a length or range, a malformed
 * timestamp); plan, scope and environment names are content, checked by `AccountAdministration`
 * (422), as the contract treats unknown template and locale names. Each still lists its values in
 * the OpenAPI document.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { MAX_PACKS_PER_PURCHASE } from "../entitlements/allowance.ts"
import { Usage } from "../entitlements/entitlement.ts"
import { Plan } from "../entitlements/plan.ts"
import { withErrors } from "../shared/error-responses.ts"
import { NotFound } from "../shared/errors.ts"
import { oneOf, strict } from "../shared/request-values.ts"
import { IsoDateTime } from "../shared/timestamp.ts"
import { Account } from "./account.ts"
import { ApiKey } from "./api-keys.ts"
import { ApiScope, KeyEnvironment } from "./principal.ts"
import { AdminAuthentication } from "./security.ts"

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

const AccountPath = Schema.Struct({ accountId: Schema.UUID })
const KeyPath = Schema.Struct({ keyId: Schema.UUID })

/** A body's shape (400), its size and type (413, 415), and its content (422: an unknown plan or scope). */
const BODY = [400, 413, 415, 422] as const

export class AdminApi extends HttpApiGroup.make("admin")
  .add(
    withErrors(
      HttpApiEndpoint.post("createAccount", "/admin/v1/accounts")
        .setPayload(CreateAccountRequest)
        .addSuccess(AccountCreated, { status: 201 }),
      "v1",
      [NotFound],
      BODY
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.get("getAccount", "/admin/v1/accounts/:accountId").setPath(AccountPath).addSuccess(AccountDetail),
      "v1",
      [NotFound],
      [400]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("createKey", "/admin/v1/accounts/:accountId/keys")
        .setPath(AccountPath)
        .setPayload(CreateKeyRequest)
        .addSuccess(KeyCreated, { status: 201 }),
      "v1",
      [NotFound],
      BODY
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("revokeKey", "/admin/v1/keys/:keyId/revoke").setPath(KeyPath).addSuccess(KeyRevoked),
      "v1",
      [NotFound],
      [400]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("addCreditPacks", "/admin/v1/accounts/:accountId/credit-packs")
        .setPath(AccountPath)
        .setPayload(AddCreditPacksRequest)
        .addSuccess(CreditPacksAdded, { status: 201 }),
      "v1",
      [NotFound],
      BODY
    )
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin")
  .annotate(
    OpenApi.Description,
    "Operators' API: accounts, API keys and credit packs. Enabled by PRESSROOM_ADMIN_TOKEN (Authorization: Bearer <admin token>); without it every route answers 404."
  ) {}
