/** The signed-in member of a dashboard request, as session.ts provides it to pages. */
import { Context } from "effect"
import type { Principal } from "../accounts/principal.ts"
import type { Session } from "../members/sessions.ts"

export interface SignedIn {
  readonly session: Session
  readonly principal: Principal
}

export class CurrentMember extends Context.Tag("pressroom/dashboard/CurrentMember")<CurrentMember, SignedIn>() {}
