/**
 * The two credentials of the API as middleware tags: API keys (`Authorization: Bearer pk_live_…`)
 * on v1 and v2, and the operator's admin token on the admin API. Neither works where the other
 * does. One implementation serves both API-key tags (authentication.ts); there are two so that the
 * OpenAPI document shows each API's 401 in its own envelope.
 */
import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { errorResponse } from "../shared/error-responses.ts"
import { CurrentPrincipal } from "./principal.ts"

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("pressroom/Authentication", {
  failure: errorResponse(401, "v2"),
  provides: CurrentPrincipal,
  security: { apiKey: HttpApiSecurity.bearer }
}) {}

export class AuthenticationV1 extends HttpApiMiddleware.Tag<AuthenticationV1>()("pressroom/AuthenticationV1", {
  failure: errorResponse(401, "v1"),
  provides: CurrentPrincipal,
  security: { apiKey: HttpApiSecurity.bearer }
}) {}

/** Without a configured admin token it fails with 404, as if the admin API did not exist. */
export class AdminAuthentication extends HttpApiMiddleware.Tag<AdminAuthentication>()("pressroom/AdminAuthentication", {
  failure: errorResponse(401, "v1"),
  security: { adminToken: HttpApiSecurity.bearer }
}) {}
