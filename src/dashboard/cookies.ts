/** The dashboard's cookies: read from the request, and written with the attributes of contract section 12. */
import type { HttpServerRequest } from "@effect/platform"

export const SESSION_COOKIE = "pressroom_session"
/** The form token of the pages shown before a session exists (sign-in, invitation): a double-submit cookie. */
export const FORM_COOKIE = "pressroom_form"

const SESSION_MAX_AGE_SECONDS = 7 * 24 * 60 * 60

export const cookieOf = (request: HttpServerRequest.HttpServerRequest, name: string): string | undefined => {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=")
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** `Set-Cookie` for `name`: HttpOnly, SameSite=Lax, Path=/app, Secure when the public base URL is https; `value` null deletes it. */
export const setCookie = (name: string, value: string | null, secure: boolean, maxAgeSeconds = SESSION_MAX_AGE_SECONDS): string =>
  [
    `${name}=${value ?? ""}`,
    "HttpOnly",
    "SameSite=Lax",
    "Path=/app",
    `Max-Age=${value === null ? 0 : maxAgeSeconds}`,
    ...(secure ? ["Secure"] : [])
  ].join("; ")
