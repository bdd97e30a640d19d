/**
 * `POST /mcp` (contract section 13): the Streamable HTTP transport, stateless and answering JSON,
 * behind the same API keys as REST. The key is checked before the body is read; the body is read
 * through the same checks as REST's (request-body.ts).
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { Duration, Effect, Redacted, Runtime } from "effect"
import { Authentication } from "../accounts/security.ts"
import type { Admission } from "../admission/admission.ts"
import type { Idempotency } from "../idempotency/idempotency.ts"
import { syncThresholdMs } from "../jobs/sync-threshold.ts"
import { callTool } from "./calls.ts"
import { makeMcpServer } from "./server.ts"
import type { Tool } from "./tool.ts"
import { type ToolServices, tools } from "./tools.ts"

export const MCP_PATH = "/mcp"

export const McpRoute = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const authentication = yield* Authentication
    const toolList = tools(Duration.millis(yield* syncThresholdMs))
    const runtime = yield* Effect.runtime<ToolServices | Admission | Idempotency>()

    yield* router.post(
      MCP_PATH,
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const principal = yield* authentication.apiKey(Redacted.make((request.headers.authorization ?? "").slice("Bearer ".length)))
        const body = yield* request.json
        const server = makeMcpServer(toolList, (tool, args) =>
          Runtime.runPromise(runtime)(callTool(tool as Tool<unknown, unknown, unknown, ToolServices>, principal, args))
        )
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
        yield* Effect.promise(() => server.connect(transport))
        const web = new Request(new URL(MCP_PATH, "http://localhost"), { method: "POST", headers: request.headers })
        const response = yield* Effect.promise(() => transport.handleRequest(web, { parsedBody: body }))
        const answer = HttpServerResponse.fromWeb(response)
        yield* Effect.promise(() => server.close())
        return answer
      })
    )
  })
)
