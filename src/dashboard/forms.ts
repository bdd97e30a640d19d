/**
 * A state change's form, read and checked (csrf.ts): `memberForm` for a signed-in member's
 * (the session's token), `visitorForm` for the pages before sign-in (the double-submit cookie).
 */
import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { DashboardSettings } from "./config.ts"
import { cookieOf, FORM_COOKIE, setCookie } from "./cookies.ts"
import { checkStateChange, type CsrfRefused } from "./csrf.ts"
import { type FormRefused, readForm } from "./form.ts"
import { CurrentMember } from "./member-context.ts"

export const memberForm: Effect.Effect<
  URLSearchParams,
  CsrfRefused | FormRefused,
  HttpServerRequest.HttpServerRequest | DashboardSettings | CurrentMember
> = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const form = yield* readForm(request)
  yield* checkStateChange(request, yield* DashboardSettings, form, (yield* CurrentMember).session.csrfToken)
  return form
})

export const visitorForm: Effect.Effect<
  URLSearchParams,
  CsrfRefused | FormRefused,
  HttpServerRequest.HttpServerRequest | DashboardSettings
> = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const form = yield* readForm(request)
  yield* checkStateChange(request, yield* DashboardSettings, form, cookieOf(request, FORM_COOKIE) ?? "")
  return form
})

/**
 * The form token of a page before sign-in: the visitor's cookie when it has one, else a new one,
 * with the `Set-Cookie` that gives it (an hour is ample to fill in a form).
 */
export const visitorToken: Effect.Effect<
  { readonly token: string; readonly setCookie: Readonly<Record<string, string>> },
  never,
  HttpServerRequest.HttpServerRequest | DashboardSettings
> = Effect.gen(function* () {
  const existing = cookieOf(yield* HttpServerRequest.HttpServerRequest, FORM_COOKIE)
  if (existing !== undefined && /^[A-Za-z0-9_-]{43}$/.test(existing)) return { token: existing, setCookie: {} as Record<string, string> }
  const token = randomBytes(32).toString("base64url")
  return { token, setCookie: { "set-cookie": setCookie(FORM_COOKIE, token, (yield* DashboardSettings).secureCookies, 3600) } }
})
