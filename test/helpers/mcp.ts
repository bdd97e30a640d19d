/** An MCP client of a running server, as an assistant connects one: the SDK's own Client over Streamable HTTP. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js"

export const connect = async (url: string, key: string, fetch?: FetchLike) => {
  const client = new Client({ name: "pressroom-test", version: "1" })
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      ...(fetch ? { fetch } : {})
    })
  )
  return client
}

export interface ToolAnswer {
  readonly structured: any
  readonly error: any
  readonly raw: any
}

/** A tool call's result: its structuredContent, or the error its text content holds. */
export const call = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> => {
  const raw: any = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })
  return {
    raw,
    structured: raw.isError ? undefined : raw.structuredContent,
    error: raw.isError ? JSON.parse(raw.content[0].text).error : undefined
  }
}

export const documentArguments = (markdown = "# Ada Lovelace\n\nAnalyst of engines.", taskId = "task-mcp") => ({
  taskId,
  title: "Through MCP",
  revision: { markdown, parentRevisionId: null, spec: { locale: "en", templateId: "clean" } }
})

export const output = (revisionId: string, filename = "mcp.pdf") => ({ revisionId, output: { filename, format: "pdf" } })
