/**
 * The signed-in member of a dashboard request (contract section 12): the session of the cookie,
 * and the principal it acts as, a member holding every scope of the account, so that every
 * service is called as the API calls it (`CurrentPrincipal`). Only the session cookie opens these
 * routes: an `Authorization` header is never read here, as the cookie is never read under `/api`.
 */
import { HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { Accounts } from "../accounts/accounts.ts"
import { ALL_SCOPES, CurrentPrincipal } from "../accounts/principal.ts"
import { Sessions } from "../members/sessions.ts"
import { cookieOf, SESSION_COOKIE } from "./cookies.ts"
import { html } from "./html.ts"
import { CurrentMember, type SignedIn } from "./member-context.ts"
import { htmlResponse, redirect } from "./responses.ts"
import { statusPage } from "./status-page.ts"

/** The live session of the request's cookie, with its principal; none without one. */
export const currentSession: Effect.Effect<
  Option.Option<SignedIn>,
  never,
  HttpServerRequest.HttpServerRequest | Sessions | Accounts
> = Effect.gen(function* () {
  const token = cookieOf(yield* HttpServerRequest.HttpServerRequest, SESSION_COOKIE)
  if (token === undefined) return Option.none()
  const found = yield* (yield* Sessions).find(token)
  if (Option.isNone(found)) return Option.none()
  const session = found.value
  const account = yield* Effect.orDie((yield* Accounts).find(session.accountId))
  return Option.some({
    session,
    principal: {
      accountId: account.id,
      actor: { kind: "member", memberId: session.memberId },
      plan: account.plan,
      scopes: new Set(ALL_SCOPES)
    }
  })
})

/**
 * `handler` run for the signed-in member. Without a session a page (GET) sends the browser to
 * sign in; anything else is refused with 401.
 */
export const signedIn = <E, R>(
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  E,
  Exclude<Exclude<R, CurrentMember>, CurrentPrincipal> | HttpServerRequest.HttpServerRequest | Sessions | Accounts
> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const found = yield* currentSession
    if (Option.isNone(found)) {
      return request.method === "GET" || request.method === "HEAD"
        ? redirect("/app/sign-in")
        : htmlResponse(statusPage(401, html`Your session has ended. <a href="/app/sign-in">Sign in</a> again.`), 401)
    }
    return yield* handler.pipe(
      Effect.provideService(CurrentMember, found.value),
      Effect.provideService(CurrentPrincipal, found.value.principal)
    )
  })
