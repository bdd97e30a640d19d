/**
 * The HTTP server: the API's handlers over the services they use, the `/docs` page, and the
 * error envelope around everything. `ServerLive` is what `pressroom serve` launches.
 */
import { HttpApiBuilder, HttpApiScalar, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import { createServer } from "node:http"
import { AdminHandlers } from "../accounts/http.ts"
import { AuthenticationLive } from "../accounts/authentication.ts"
import { adminTokenConfig } from "../accounts/config.ts"
import { V1Handlers } from "../convert/http.ts"
import { PlatformLive } from "../platform.ts"
import { TemplatesHandlers } from "../templates/http.ts"
import { PressroomApi } from "./api.ts"
import { listenConfig } from "./config.ts"
import { errorEnvelope } from "./error-envelope.ts"
import { OpsHandlers } from "../ops/http.ts"
import { routeTable } from "./route-table.ts"

const DOCS_PATH = "/docs"

/** With the admin API off, its paths are unknown routes in every respect (404, never 405 or 415). */
const routes = Effect.map(adminTokenConfig, (token) =>
  routeTable(PressroomApi, [{ method: "GET", path: DOCS_PATH }], Option.isNone(token) ? ["/admin/"] : [])
)

const ApiLive = HttpApiBuilder.api(PressroomApi).pipe(
  Layer.provide([OpsHandlers, V1Handlers, TemplatesHandlers, AdminHandlers]),
  Layer.provide(AuthenticationLive)
)

const HttpLive = Layer.unwrapEffect(Effect.map(listenConfig, ({ port, host }) => NodeHttpServer.layer(createServer, { port, host })))

export const ServerLive = HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiScalar.layer({ path: DOCS_PATH })),
  Layer.provide(HttpApiBuilder.middleware(Effect.flatMap(routes, errorEnvelope))),
  Layer.provide(ApiLive),
  HttpServer.withLogAddress,
  Layer.provide(HttpLive),
  Layer.provide(PlatformLive)
)
