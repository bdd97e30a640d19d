/**
 * The two credentials of the API: API keys (`Authorization: Bearer pk_live_…`) on v1 and v2, and
 * the operator's admin token on the admin API. Neither works where the other does. One
 * implementation serves both API-key tags (`accounts/authentication.ts`); there are two so that
 * the OpenAPI document shows each API's 401 in its own envelope.
 */
import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { CurrentPrincipal } from "../accounts/principal.ts"
import { errorSchema } from "./error-schemas.ts"

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("pressroom/Authentication", {
  failure: errorSchema(401, "v2"),
  provides: CurrentPrincipal,
  security: { apiKey: HttpApiSecurity.bearer }
}) {}

export class AuthenticationV1 extends HttpApiMiddleware.Tag<AuthenticationV1>()("pressroom/AuthenticationV1", {
  failure: errorSchema(401, "v1"),
  provides: CurrentPrincipal,
  security: { apiKey: HttpApiSecurity.bearer }
}) {}

export class AdminAuthentication extends HttpApiMiddleware.Tag<AdminAuthentication>()("pressroom/AdminAuthentication", {
  failure: errorSchema(401, "v1"),
  security: { adminToken: HttpApiSecurity.bearer }
}) {}
