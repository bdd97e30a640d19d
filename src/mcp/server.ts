/**
 * The MCP server of one request (`pressroom mcp` forwards to it too). Stateless: nothing is kept
 * between requests, so consecutive requests of one client may reach different processes of a
 * cluster; each request gets a server of its own over the caller's principal.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Option } from "effect"
import { InvalidRequest } from "../shared/errors.ts"
import { errorResult, type ToolResult } from "./calls.ts"
import { readResource, resourceList, TEMPLATE_URI_TEMPLATE } from "./resources.ts"
import { inputSchemaOf, outputSchemaOf, type Tool } from "./tool.ts"
import { findTool } from "./tools.ts"

export const SERVER_INFO = { name: "pressroom", version: "1" } as const

export const INSTRUCTIONS =
  "Pressroom typesets Markdown into professional, reproducible PDFs through named templates. Read pressroom://guides/markdown before writing Markdown, pick a template with list_templates, then convert_markdown for one PDF, or create_document, preview_revision and publish_revision to work on a document in revisions."

export const makeMcpServer = (tools: ReadonlyArray<Tool>, call: (tool: Tool, args: unknown) => Promise<ToolResult>) => {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS })
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: inputSchemaOf(tool),
      outputSchema: outputSchemaOf(tool),
      annotations: { readOnlyHint: !tool.persists, openWorldHint: false }
    }))
  }))
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    Option.match(findTool(tools, request.params.name), {
      onNone: () => errorResult(InvalidRequest.malformed(`unknown tool '${request.params.name.slice(0, 100)}'`)),
      onSome: (tool) => call(tool, request.params.arguments)
    })
  )
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: resourceList() }))
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: TEMPLATE_URI_TEMPLATE,
        name: "template",
        description: "A built-in template: its description, the front matter keys it reads, and its gallery image",
        mimeType: "text/markdown"
      }
    ]
  }))
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const contents = readResource(request.params.uri)
    if (!contents) throw new McpError(ErrorCode.InvalidParams, `unknown resource ${request.params.uri.slice(0, 200)}`)
    return { contents }
  })
  return server
}
