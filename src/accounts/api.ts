/**
 * The operators' admin API (contract section 9), behind the admin token. When
 * `PRESSROOM_ADMIN_TOKEN` is unset every route here answers 404, as if the API did not exist. Its
 * bodies (administration-bodies.ts) are those `AccountAdministration` (administration.ts) and the
 * CLI take and give.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { withErrors } from "../shared/error-responses.ts"
import { NotFound } from "../shared/errors.ts"
import {
  AccountCreated,
  AccountDetail,
  AddCreditPacksRequest,
  CreateAccountRequest,
  CreateKeyRequest,
  CreditPacksAdded,
  KeyCreated,
  KeyList,
  KeyRevoked
} from "./administration-bodies.ts"
import { AdminAuthentication } from "./security.ts"

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
      HttpApiEndpoint.get("listKeys", "/admin/v1/accounts/:accountId/keys").setPath(AccountPath).addSuccess(KeyList),
      "v1",
      [NotFound],
      [400]
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
