/**
 * The operators' admin API (contract section 9), behind the admin token. When
 * `PRESSROOM_ADMIN_TOKEN` is unset every route here answers 404, as if the API did not exist.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import {
  AccountCreated,
  AccountDetail,
  AddCreditPacksRequest,
  CreateAccountRequest,
  CreateKeyRequest,
  CreditPacksAdded,
  KeyCreated,
  KeyRevoked
} from "../../accounts/admin-schemas.ts"
import { withErrors } from "../error-schemas.ts"
import { AdminAuthentication } from "../security.ts"

const AccountPath = Schema.Struct({ accountId: Schema.UUID })
const KeyPath = Schema.Struct({ keyId: Schema.UUID })

export class AdminApi extends HttpApiGroup.make("admin")
  .add(
    withErrors(
      HttpApiEndpoint.post("createAccount", "/admin/v1/accounts").setPayload(CreateAccountRequest).addSuccess(AccountCreated, { status: 201 }),
      "v1",
      [400, 404, 413, 415, 422, 500]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.get("getAccount", "/admin/v1/accounts/:accountId").setPath(AccountPath).addSuccess(AccountDetail),
      "v1",
      [400, 404, 500]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("createKey", "/admin/v1/accounts/:accountId/keys")
        .setPath(AccountPath)
        .setPayload(CreateKeyRequest)
        .addSuccess(KeyCreated, { status: 201 }),
      "v1",
      [400, 404, 413, 415, 422, 500]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("revokeKey", "/admin/v1/keys/:keyId/revoke").setPath(KeyPath).addSuccess(KeyRevoked),
      "v1",
      [400, 404, 500]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("addCreditPacks", "/admin/v1/accounts/:accountId/credit-packs")
        .setPath(AccountPath)
        .setPayload(AddCreditPacksRequest)
        .addSuccess(CreditPacksAdded, { status: 201 }),
      "v1",
      [400, 404, 413, 415, 422, 500]
    )
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin")
  .annotate(
    OpenApi.Description,
    "Operators' API: accounts, API keys and credit packs. Enabled by PRESSROOM_ADMIN_TOKEN (Authorization: Bearer <admin token>); without it every route answers 404."
  )
{}
