/**
 * The HTTP server: the API's handlers over the services they use, the `/docs` page, and the
 * error envelope around everything. `ServerLive` is what `pressroom serve` launches.
 */
import { HttpApiBuilder, HttpApiScalar } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { type Config, Effect, Layer, Option } from "effect"
import { createServer } from "node:http"
import { AdminHandlers } from "../accounts/http.ts"
import { AuthenticationLive } from "../accounts/authentication.ts"
import { adminTokenConfig } from "../accounts/config.ts"
import { ArtifactLinksHandlers, ArtifactsHandlers } from "../artifacts/http.ts"
import { V1Handlers } from "../convert/http.ts"
import { DashboardLive } from "../dashboard/routes/router.ts"
import { DocumentsHandlers } from "../documents/http.ts"
import { JobsHandlers } from "../jobs/http.ts"
import { McpRoute, MCP_PATH } from "../mcp/http.ts"
import { MembersAdminHandlers } from "../members/http.ts"
import { PlatformLive } from "../platform.ts"
import { TemplatesHandlers } from "../templates/http.ts"
import { WebhooksHandlers } from "../webhooks/http.ts"
import { PressroomApi } from "./api.ts"
import { connectionConfig, listenConfig } from "./config.ts"
import { answerClientError } from "./connections.ts"
import { withOverview } from "./docs-page.ts"
import { errorEnvelope } from "./error-envelope.ts"
import { OpsHandlers } from "../ops/http.ts"
import { Metrics } from "../ops/metrics.ts"
import { routeTable } from "./route-table.ts"
import { withStartLog } from "./start-log.ts"

const DOCS_PATH = "/docs"

/** With the admin API off, its paths are unknown routes in every respect (404, never 405 or 415). */
const routes = Effect.map(adminTokenConfig, (token) =>
  routeTable(
    PressroomApi,
    [
      { method: "GET", path: DOCS_PATH },
      { method: "POST", path: MCP_PATH }
    ],
    Option.isNone(token) ? ["/admin/"] : []
  )
)

const ApiLive = HttpApiBuilder.api(PressroomApi).pipe(
  Layer.provide([
    OpsHandlers,
    V1Handlers,
    DocumentsHandlers,
    JobsHandlers,
    ArtifactsHandlers,
    ArtifactLinksHandlers,
    TemplatesHandlers,
    WebhooksHandlers,
    AdminHandlers,
    MembersAdminHandlers
  ]),
  Layer.provide(AuthenticationLive)
)

/** Node's server with the configured timeouts; what its parser refuses is answered in the envelope too (connections.ts). */
const nodeServer = (
  { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs }: Config.Config.Success<typeof connectionConfig>,
  metrics: Metrics
) => {
  const server = createServer({
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
    // Node looks for connections past their time every 30 s by default, which would let one outlive its timeout by that much.
    connectionsCheckingInterval: Math.min(1_000, headersTimeoutMs)
  })
  server.on(
    "clientError",
    answerClientError((method, status) => metrics.recordRequest(method, "unmatched", status))
  )
  return server
}

const HttpLive = Layer.unwrapEffect(
  Effect.map(Effect.all([listenConfig, connectionConfig, Metrics]), ([{ port, host }, timeouts, metrics]) =>
    NodeHttpServer.layer(() => nodeServer(timeouts, metrics), { port, host })
  )
)

export const ServerLive = HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiScalar.layer({ path: DOCS_PATH })),
  Layer.provide(HttpApiBuilder.middleware(withOverview(DOCS_PATH))),
  // The MCP server (contract section 13) beside the API, behind the same keys and error envelope.
  Layer.provide(McpRoute.pipe(Layer.provide(AuthenticationLive))),
  Layer.provide(DashboardLive),
  Layer.provide(HttpApiBuilder.middleware(Effect.flatMap(routes, errorEnvelope))),
  Layer.provide(ApiLive),
  withStartLog,
  Layer.provide(HttpLive),
  Layer.provide(PlatformLive)
)
