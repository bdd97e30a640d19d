/**
 * Who is calling: the account behind a verified API key or a signed-in member, and what they may do
 * (contract sections 2 and 12). Every service takes the principal alone, so a member acts through
 * the same services as a key; the actor says which of the two it was, for what records it.
 */
import { Context, Effect, Schema } from "effect"
import type { Plan } from "../entitlements/plan.ts"
import { Forbidden } from "../shared/errors.ts"

export const ApiScope = Schema.Literal("documents.render", "documents.preview", "documents.read", "webhooks.manage", "templates.manage")
export type ApiScope = typeof ApiScope.Type
export const ALL_SCOPES: ReadonlyArray<ApiScope> = ApiScope.literals

export const KeyEnvironment = Schema.Literal("live", "test")
export type KeyEnvironment = typeof KeyEnvironment.Type

/** An API key (`/api/*`), or a member signed in to the dashboard (`/app`), who holds every scope of the account. */
export type Actor = { readonly kind: "key"; readonly keyId: string } | { readonly kind: "member"; readonly memberId: string }

export interface Principal {
  readonly accountId: string
  readonly actor: Actor
  readonly plan: Plan
  readonly scopes: ReadonlySet<ApiScope>
}

export class CurrentPrincipal extends Context.Tag("pressroom/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

/** Fails with 403 `forbidden` unless the principal has one of `scopes`. */
export const requireScope = (...scopes: ReadonlyArray<ApiScope>): Effect.Effect<Principal, Forbidden, CurrentPrincipal> =>
  Effect.flatMap(CurrentPrincipal, (principal) =>
    scopes.some((scope) => principal.scopes.has(scope)) ? Effect.succeed(principal) : Effect.fail(new Forbidden({ scopes }))
  )

/** The member behind `principal`, if a member it is (what jobs and keys record). */
export const memberOf = (principal: Principal): string | null => (principal.actor.kind === "member" ? principal.actor.memberId : null)
