/** The operator's invitation of members (contract section 12), on the admin API and behind its token. */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AdminAuthentication } from "../accounts/security.ts"
import { withErrors } from "../shared/error-responses.ts"
import { InvalidStateTransition, NotFound } from "../shared/errors.ts"
import { InvitationCreated, InviteRequest } from "./invitation-bodies.ts"

export class MembersAdminApi extends HttpApiGroup.make("membersAdmin")
  .add(
    withErrors(
      HttpApiEndpoint.post("invite", "/admin/v1/accounts/:accountId/invitations")
        .setPath(Schema.Struct({ accountId: Schema.UUID }))
        .setPayload(InviteRequest)
        .addSuccess(InvitationCreated, { status: 201 }),
      "v1",
      [NotFound, InvalidStateTransition],
      [400, 413, 415, 422]
    )
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: members")
  .annotate(
    OpenApi.Description,
    "Invites a person into an account's dashboard: the URL lets them choose a password (once, within 72 hours). An email already a member of another account is 409."
  ) {}
