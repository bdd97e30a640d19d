/**
 * Inviting a member, for the admin API and `pressroom accounts invite`: the invitation and the URL
 * that carries its token, under `PRESSROOM_PUBLIC_BASE_URL` or, unset, the base the caller knows
 * (the server's own address; for the CLI, where the server listens by HOST and PORT).
 */
import { Effect } from "effect"
import type { InvalidRequest, InvalidStateTransition, NotFound } from "../shared/errors.ts"
import type { InvitationCreated } from "./invitation-bodies.ts"
import { Members } from "./members.ts"

export const invitationPath = (token: string) => `/app/invitations/${token}`

export const inviteMember = (
  accountId: string,
  email: string,
  baseUrl: string
): Effect.Effect<typeof InvitationCreated.Type, InvalidRequest | NotFound | InvalidStateTransition, Members> =>
  Effect.flatMap(Members, (members) =>
    Effect.map(members.invite(accountId, email), ({ invitation, token }) => ({ invitation, url: `${baseUrl}${invitationPath(token)}` }))
  )
