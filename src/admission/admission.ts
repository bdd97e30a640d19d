/**
 * Admission of an authenticated request, in one order for every endpoint: the key's scope (403
 * spends nothing), then a token of the owner's rate class (429 does nothing else), then, for a
 * mutation, its Idempotency-Key (which replays, waits or executes). Authentication comes first, as
 * the endpoint's middleware.
 */
import type { HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { type ApiScope, type CurrentPrincipal, type Principal, requireScope } from "../accounts/principal.ts"
import { type RateClass, RateLimiter } from "../entitlements/rate-limiter.ts"
import { Idempotency, type RestIdempotentRequest } from "../idempotency/idempotency.ts"
import type { Forbidden, PressroomError, RateLimited } from "../shared/errors.ts"

export class Admission extends Effect.Service<Admission>()("pressroom/Admission", {
  effect: Effect.gen(function* () {
    const rateLimiter = yield* RateLimiter
    const idempotency = yield* Idempotency

    /** The caller, once its key's scope (one of `scopes` when several would do) and a token of `rateClass` admit it. */
    const admit = (
      scopes: ApiScope | ReadonlyArray<ApiScope>,
      rateClass: RateClass
    ): Effect.Effect<Principal, Forbidden | RateLimited, CurrentPrincipal> =>
      Effect.tap(requireScope(...(typeof scopes === "string" ? [scopes] : scopes)), (principal) =>
        rateLimiter.take(principal.accountId, rateClass)
      )

    /** A mutation: admitted as `admit`, then executed at most once for its Idempotency-Key. */
    const mutate = <E extends PressroomError, R>(
      scope: ApiScope | ReadonlyArray<ApiScope>,
      rateClass: RateClass,
      request: RestIdempotentRequest,
      execute: (principal: Principal, requestSha256: string) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) =>
      Effect.flatMap(admit(scope, rateClass), (principal) => idempotency.run(request, (requestSha256) => execute(principal, requestSha256)))

    return { admit, mutate } as const
  })
}) {}
