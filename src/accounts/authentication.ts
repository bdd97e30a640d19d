/** API-key and admin-token verification. Placeholder until the accounts context lands: refuses everyone. */
import { Effect, Layer } from "effect"
import { unauthorized } from "../http/api-error.ts"
import { AdminAuthentication, Authentication, AuthenticationV1 } from "../http/security.ts"

export const AuthenticationLive = Layer.mergeAll(
  Layer.succeed(Authentication, Authentication.of({ apiKey: () => Effect.fail(unauthorized()) })),
  Layer.succeed(AuthenticationV1, AuthenticationV1.of({ apiKey: () => Effect.fail(unauthorized()) })),
  Layer.succeed(AdminAuthentication, AdminAuthentication.of({ adminToken: () => Effect.fail(unauthorized()) }))
)
