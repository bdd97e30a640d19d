/** The operator's invitation of a member (contract section 12): the admin API's and the CLI's bodies. */
import { Schema } from "effect"
import { strict } from "../shared/request-values.ts"
import { Invitation } from "./member.ts"

export const InviteRequest = Schema.Struct({
  email: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(254)).annotations({
    description: "the person's email; it belongs to one account"
  })
}).annotations({ identifier: "InviteRequest", ...strict })
export type InviteRequest = typeof InviteRequest.Type

export const InvitationCreated = Schema.Struct({
  invitation: Invitation,
  url: Schema.String.annotations({
    description: "the single-use URL (72 hours) where the person chooses a password; the only copy of its token"
  })
}).annotations({ identifier: "InvitationCreated" })
