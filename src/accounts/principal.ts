/** Who is calling: the account behind a verified API key, and what that key may do (contract section 2). */
import { Context, Effect, Schema } from "effect"
import type { Plan } from "../entitlements/plan.ts"
import { Forbidden } from "../shared/errors.ts"

export const ApiScope = Schema.Literal("documents.render", "documents.preview", "documents.read", "webhooks.manage", "templates.manage")
export type ApiScope = typeof ApiScope.Type
export const ALL_SCOPES: ReadonlyArray<ApiScope> = ApiScope.literals

export const KeyEnvironment = Schema.Literal("live", "test")
export type KeyEnvironment = typeof KeyEnvironment.Type

export interface Principal {
  readonly accountId: string
  readonly keyId: string
  readonly plan: Plan
  readonly scopes: ReadonlySet<ApiScope>
}

export class CurrentPrincipal extends Context.Tag("pressroom/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

/** Fails with 403 `forbidden` unless the key has one of `scopes`. */
export const requireScope = (...scopes: ReadonlyArray<ApiScope>): Effect.Effect<Principal, Forbidden, CurrentPrincipal> =>
  Effect.flatMap(CurrentPrincipal, (principal) =>
    scopes.some((scope) => principal.scopes.has(scope)) ? Effect.succeed(principal) : Effect.fail(new Forbidden({ scopes }))
  )
