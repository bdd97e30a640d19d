/**
 * Sign-in and sign-out (contract section 12). A wrong password, an unknown email and a throttled
 * email get the same answer. Signing in ends the session the browser had, if any, and starts a new
 * one (a new token: a session fixed before sign-in is worth nothing after it).
 */
import { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { Members } from "../../members/members.ts"
import { Sessions } from "../../members/sessions.ts"
import { DashboardSettings } from "../config.ts"
import { cookieOf, SESSION_COOKIE, setCookie } from "../cookies.ts"
import { csrfField } from "../csrf.ts"
import { memberForm, visitorForm, visitorToken } from "../forms.ts"
import { html } from "../html.ts"
import { document } from "../layout.ts"
import { htmlResponse, redirect } from "../responses.ts"
import { currentSession } from "../session.ts"

export const SIGN_IN_REFUSED = "That email and password do not match an account, or there have been too many attempts. Try again later."

const signInPage = (token: string, email = "", error?: string) =>
  document({
    title: "Sign in",
    main: html`<div class="narrow card">
      <h1>Sign in</h1>
      ${error ? html`<p class="error" role="alert">${error}</p>` : ""}
      <form method="post" action="/app/sign-in">
        ${csrfField(token)}
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${email}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <div class="actions"><button type="submit" class="button">Sign in</button></div>
      </form>
    </div>`
  })

/** The browser's new session: ends the one it had, starts another, and sends it to the overview. */
export const startSession = (memberId: string) =>
  Effect.gen(function* () {
    const sessions = yield* Sessions
    const previous = cookieOf(yield* HttpServerRequest.HttpServerRequest, SESSION_COOKIE)
    if (previous !== undefined) yield* sessions.end(previous)
    const token = yield* sessions.start(memberId)
    return redirect("/app/overview", { "set-cookie": setCookie(SESSION_COOKIE, token, (yield* DashboardSettings).secureCookies) })
  })

export const showSignIn = Effect.gen(function* () {
  if (Option.isSome(yield* currentSession)) return redirect("/app/overview")
  const { token, setCookie: cookie } = yield* visitorToken
  return htmlResponse(signInPage(token), 200, cookie)
})

export const signIn = Effect.gen(function* () {
  const form = yield* visitorForm
  const email = form.get("email") ?? ""
  const member = yield* (yield* Members).signIn(email, form.get("password") ?? "")
  if (Option.isNone(member)) {
    const { token } = yield* visitorToken
    return htmlResponse(signInPage(token, email, SIGN_IN_REFUSED), 401)
  }
  return yield* startSession(member.value)
})

export const signOut = Effect.gen(function* () {
  yield* memberForm
  const token = cookieOf(yield* HttpServerRequest.HttpServerRequest, SESSION_COOKIE)
  if (token !== undefined) yield* (yield* Sessions).end(token)
  return redirect("/app/sign-in", { "set-cookie": setCookie(SESSION_COOKIE, null, (yield* DashboardSettings).secureCookies) })
})
