/**
 * `pressroom mcp` (contract section 13): the server's MCP tools and resources over stdio, for
 * desktop clients. It holds no state and renders nothing: every request is forwarded to the
 * server at PRESSROOM_URL with the key in PRESSROOM_API_KEY, so scopes, units and rate limits
 * are the server's.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { mcpUsage, UsageError } from "./usage.ts"

/** Longer than the server's own 50 s for convert_markdown, so the server's answer always arrives. */
const CALL_TIMEOUT_MS = 120_000

const connectUpstream = async (url: string, key: string) => {
  const upstream = new Client({ name: "pressroom-mcp-stdio", version: "1" })
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", url), {
    requestInit: { headers: { authorization: `Bearer ${key}` } }
  })
  try {
    await upstream.connect(transport)
  } catch (error) {
    const status = error instanceof StreamableHTTPError ? error.code : undefined
    if (status === 401 || /\b401\b|unauthorized/i.test(String(error))) throw new Error(`${url} refused PRESSROOM_API_KEY (401)`)
    throw new Error(`cannot reach a Pressroom server at ${url}: ${error instanceof Error ? error.message : String(error)}`)
  }
  return upstream
}

export const runMcp = async (argv: ReadonlyArray<string>): Promise<void> => {
  if (argv.length > 0) throw new UsageError(mcpUsage)
  const url = process.env.PRESSROOM_URL
  const key = process.env.PRESSROOM_API_KEY
  if (!url) throw new Error("PRESSROOM_URL is not set (the URL of a Pressroom server, such as http://127.0.0.1:8080)")
  if (!key) throw new Error("PRESSROOM_API_KEY is not set (an API key, pk_live_… or pk_test_…)")
  const upstream = await connectUpstream(url, key)

  const instructions = upstream.getInstructions()
  const server = new Server(upstream.getServerVersion() ?? { name: "pressroom", version: "1" }, {
    capabilities: { tools: {}, resources: {} },
    ...(instructions ? { instructions } : {})
  })
  server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params))
  server.setRequestHandler(CallToolRequestSchema, (request) => upstream.callTool(request.params, undefined, { timeout: CALL_TIMEOUT_MS }))
  server.setRequestHandler(ListResourcesRequestSchema, (request) => upstream.listResources(request.params))
  server.setRequestHandler(ListResourceTemplatesRequestSchema, (request) => upstream.listResourceTemplates(request.params))
  server.setRequestHandler(ReadResourceRequestSchema, (request) => upstream.readResource(request.params))

  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve
  })
  await server.connect(new StdioServerTransport())
  await closed
  await upstream.close()
}
