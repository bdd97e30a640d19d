/**
 * Every state change from the dashboard (contract section 12) carries the form token and comes
 * from the dashboard's own origin: `Origin` equal to the public base URL's origin, or, when
 * `PRESSROOM_PUBLIC_BASE_URL` is unset, to the origin the request was sent to. A signed-in
 * member's token is their session's; the pages before sign-in (sign-in, invitation) use a
 * double-submit cookie. A cross-site form post fails both checks.
 */
import type { HttpServerRequest } from "@effect/platform"
import { Data, Effect, Option } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import type { DashboardConfig } from "./config.ts"
import { html } from "./html.ts"

export const CSRF_FIELD = "csrf"

export class CsrfRefused extends Data.TaggedError("CsrfRefused") {}

/** The hidden field every dashboard form carries. */
export const csrfField = (token: string) => html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`

const sameToken = (presented: string, expected: string) => {
  const digest = (text: string) => createHash("sha256").update(text).digest()
  return expected !== "" && timingSafeEqual(digest(presented), digest(expected))
}

const expectedOrigin = (request: HttpServerRequest.HttpServerRequest, config: DashboardConfig) =>
  Option.getOrElse(config.publicOrigin, () => `http://${request.headers.host ?? ""}`)

/** Fails unless `request` comes from the dashboard's origin and `form` carries `expectedToken`. */
export const checkStateChange = (
  request: HttpServerRequest.HttpServerRequest,
  config: DashboardConfig,
  form: URLSearchParams,
  expectedToken: string
): Effect.Effect<void, CsrfRefused> =>
  request.headers.origin === expectedOrigin(request, config) && sameToken(form.get(CSRF_FIELD) ?? "", expectedToken)
    ? Effect.void
    : Effect.fail(new CsrfRefused())
