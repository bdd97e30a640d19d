/**
 * The two credentials (contract sections 2 and 9). API keys on v1 and v2: a well-formed key of
 * this server's environment that exists, has not expired and is not revoked; every other
 * credential gets the same 401, which says nothing of why and never repeats what was sent. The
 * admin token on the admin API only, compared in constant time; without a configured token every
 * admin route answers 404, as if the API did not exist. Neither credential works where the other
 * does: an API key is never the admin token, and the admin token is refused as an API key even if
 * an operator chose one that looks like a key.
 */
import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { NotFound, Unauthorized } from "../shared/errors.ts"
import { ApiKeys } from "./api-keys.ts"
import { adminTokenConfig, keyEnvironmentConfig } from "./config.ts"
import { AdminAuthentication, Authentication, AuthenticationV1 } from "./security.ts"

/** Equal strings, in time independent of where they differ (both are hashed first, so their lengths leak nothing either). */
const sameSecret = (presented: string, expected: string): boolean => {
  const digest = (text: string) => createHash("sha256").update(text).digest()
  return timingSafeEqual(digest(presented), digest(expected))
}

/** The bearer credential; empty unless the header's scheme is `Bearer` (the platform cuts the first seven characters whatever they say). */
const bearerToken = (credential: Redacted.Redacted<string>) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
    /^bearer /i.test(request.headers.authorization ?? "") ? Redacted.value(credential) : ""
  )

export const AuthenticationLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const environment = yield* keyEnvironmentConfig
    const adminToken = Option.map(yield* adminTokenConfig, Redacted.value)
    const isAdminToken = (token: string) => Option.exists(adminToken, (expected) => sameSecret(token, expected))

    const apiKey = (credential: Redacted.Redacted<string>) =>
      Effect.gen(function* () {
        const token = yield* bearerToken(credential)
        const principal = isAdminToken(token) ? Option.none() : yield* keys.authenticate(token, environment)
        return yield* Option.match(principal, {
          onNone: () => Effect.fail(new Unauthorized({ message: "a valid API key is required" })),
          onSome: Effect.succeed
        })
      })

    const admin = (credential: Redacted.Redacted<string>) =>
      Option.match(adminToken, {
        onNone: () => Effect.fail(new NotFound({ resource: "route" })),
        onSome: (expected) =>
          Effect.flatMap(bearerToken(credential), (token) =>
            sameSecret(token, expected) ? Effect.void : Effect.fail(new Unauthorized({ message: "a valid admin token is required" }))
          )
      })

    return Layer.mergeAll(
      Layer.succeed(Authentication, Authentication.of({ apiKey })),
      Layer.succeed(AuthenticationV1, AuthenticationV1.of({ apiKey })),
      Layer.succeed(AdminAuthentication, AdminAuthentication.of({ adminToken: admin }))
    )
  })
).pipe(Layer.provide(ApiKeys.Default))
