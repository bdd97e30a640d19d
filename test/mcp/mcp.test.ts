/**
 * The MCP server (contract section 13) driven by the SDK's own client against a real server on
 * each database: over Streamable HTTP at /mcp and over stdio through `pressroom mcp`. The tools
 * and their schemas (beside the OpenAPI document's), a conversion whose PDF is read back, the
 * document lifecycle, idempotency, scopes, owner scoping, units, hostile arguments, resources.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import t from "tap"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { createAccount, requestJson } from "../helpers/api.ts"
import { childEnv } from "../helpers/child-env.ts"
import { until } from "../helpers/lifecycle.ts"
import { call, connect, documentArguments, output } from "../helpers/mcp.ts"
import { pdfText } from "../helpers/pdf.ts"
import { forEachSharedServer } from "../helpers/shared-server.ts"

const TOOLS = [
  "list_templates",
  "convert_markdown",
  "create_document",
  "create_revision",
  "get_document",
  "list_documents",
  "preview_revision",
  "publish_revision",
  "get_job",
  "cancel_job",
  "create_download_link"
]

const BIN = join(packageRoot, "bin", "pressroom.js")

const downloadText = async (href: string) => {
  const response = await fetch(href)
  if (response.status !== 200) throw new Error(`download: ${response.status}`)
  return pdfText(new Uint8Array(await response.arrayBuffer()))
}

t.test("MCP", (t) =>
  forEachSharedServer(t, async (t, server) => {
    const owner = await createAccount(server)
    const client = await connect(server.url, owner.key)
    t.teardown(() => client.close())

    await t.test("a request without a valid key is 401", async (t) => {
      const response = await requestJson(server, "POST", "/mcp", {
        token: "pk_live_00000000000000000000000000000000",
        body: { jsonrpc: "2.0", id: 1, method: "tools/list" }
      })
      t.equal(response.status, 401)
      t.equal(response.body.error.code, "unauthorized")
    })

    await t.test("the tools, with schemas from the REST API's", async (t) => {
      const { tools } = await client.listTools()
      t.same(
        tools.map((tool) => tool.name),
        TOOLS
      )
      for (const tool of tools) {
        t.equal(tool.inputSchema.type, "object", `${tool.name}: object arguments`)
        t.equal(tool.outputSchema?.type, "object", `${tool.name}: object result`)
        t.ok((tool.description ?? "").length > 60, `${tool.name}: described for a model`)
      }
      const openapi = (await requestJson(server, "GET", "/api/v2/openapi.json")).body
      const rest = openapi.components.schemas
      const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]))
      t.same(
        Object.keys(byName.create_document!.inputSchema.properties!).sort(),
        [...Object.keys(rest.CreateDocumentRequest.properties), "idempotencyKey"].sort(),
        "create_document takes the REST body and an idempotencyKey"
      )
      t.same(
        Object.keys(byName.get_job!.outputSchema!.properties!).sort(),
        Object.keys(rest.JobResponse.properties).sort(),
        "get_job answers a JobResponse"
      )
      t.same(byName.create_document!.inputSchema.required, rest.CreateDocumentRequest.required)

      // Every tool beside the REST operation it stands for (by operationId): its arguments are the
      // body's fields, the path parameters and list queries and, when it persists, idempotencyKey,
      // each body field the same JSON Schema as REST's once references are resolved on both sides;
      // its result is the operation's success answer, property by property.
      const inline = (schema: any, defs: Record<string, any>, prefix: string): any =>
        Array.isArray(schema)
          ? schema.map((item) => inline(item, defs, prefix))
          : schema && typeof schema === "object"
            ? typeof schema.$ref === "string" && schema.$ref.startsWith(prefix)
              ? inline(defs[schema.$ref.slice(prefix.length)], defs, prefix)
              : Object.fromEntries(
                  Object.entries(schema)
                    .filter(([key]) => !["description", "title", "$defs", "$id"].includes(key))
                    .map(([key, value]) => [key, inline(value, defs, prefix)])
                )
            : schema
      const restSchema = (schema: any) => inline(schema, rest, "#/components/schemas/")
      const toolSchema = (schema: any) => inline(schema, schema.$defs ?? {}, "#/$defs/")
      const operations = Object.fromEntries(
        Object.values(openapi.paths as Record<string, Record<string, any>>)
          .flatMap((methods) => Object.values(methods))
          .map((operation) => [operation.operationId, operation])
      )
      const counterparts: Record<string, string> = {
        create_document: "documents.create",
        create_revision: "documents.createRevision",
        get_document: "documents.get",
        list_documents: "documents.list",
        preview_revision: "documents.createPreview",
        publish_revision: "documents.createPublication",
        get_job: "jobs.get",
        cancel_job: "jobs.cancel",
        create_download_link: "artifacts.createLink"
      }
      for (const [name, operationId] of Object.entries(counterparts)) {
        const tool = byName[name]!
        const operation = operations[operationId]
        const input = toolSchema(tool.inputSchema)
        const requestBody = restSchema(operation.requestBody?.content["application/json"]?.schema ?? {})
        const body = { properties: {}, ...requestBody }
        const parameters = (operation.parameters ?? []).filter((p: any) => p.in === "path" || p.in === "query").map((p: any) => p.name)
        const persists = tool.annotations?.readOnlyHint === false
        t.same(
          Object.keys(input.properties).sort(),
          [...Object.keys(body.properties), ...parameters, ...(persists ? ["idempotencyKey"] : [])].sort(),
          `${name}: the arguments of ${operationId}`
        )
        for (const field of Object.keys(body.properties)) t.same(input.properties[field], body.properties[field], `${name}.${field}`)
        const success = Object.entries(operation.responses as Record<string, any>).find(([status]) => status.startsWith("2"))![1]
        const answer = restSchema(success.content["application/json"].schema)
        t.same(toolSchema(tool.outputSchema).properties, answer.properties, `${name}: answers as ${operationId}`)
        t.same(
          [...(toolSchema(tool.outputSchema).required ?? [])].sort(),
          [...(answer.required ?? [])].sort(),
          `${name}: the same required`
        )
      }
      const convert = toolSchema(byName.convert_markdown!.inputSchema)
      const v1 = restSchema(rest.ConvertRequest)
      for (const field of ["markdown", "locale", "options", "filename"])
        t.same(convert.properties[field], v1.properties[field], `convert_markdown.${field}`)
      const converted = toolSchema(byName.convert_markdown!.outputSchema).properties
      t.same(converted.job, restSchema(rest.JobResponse).properties.job, "convert_markdown: a JobResponse's job")
      const linkAnswer = operations["artifacts.createLink"].responses["201"].content["application/json"].schema
      t.same(converted.link.anyOf[0], restSchema(linkAnswer), "convert_markdown: an ArtifactLinkResponse, or null")
    })

    await t.test("list_templates: the catalog", async (t) => {
      const { structured } = await call(client, "list_templates")
      t.equal(structured.templates.length, 57)
      t.same(
        structured.templates.filter((template: any) => template.v1).map((template: any) => template.templateId),
        ["clean", "executive", "resume", "coverletter", "academic", "legal", "creative"]
      )
    })

    await t.test("convert_markdown: a final PDF on channel mcp_v1, idempotent", async (t) => {
      const args = { markdown: "# Typeset through MCP\n\nA paragraph about analytical engines.", templateId: "assignment-college-essay" }
      const first = await call(client, "convert_markdown", { ...args, idempotencyKey: "convert-key-0001" })
      t.equal(first.structured.job.status, "succeeded")
      t.equal(first.structured.job.provenance.channel, "mcp_v1")
      t.equal(first.structured.job.entitlement.units, 1)
      t.equal(first.structured.link.artifactId, first.structured.artifact.id)
      t.ok(Date.parse(first.structured.link.expiresAt) - Date.now() <= 300_000, "the link lasts at most five minutes")
      t.match(await downloadText(first.structured.link.href), /Typeset through MCP.*analytical engines/)

      const again = await call(client, "convert_markdown", { ...args, idempotencyKey: "convert-key-0001" })
      t.equal(again.structured.job.id, first.structured.job.id, "the same key replays: one job")
      const conflict = await call(client, "convert_markdown", { ...args, markdown: "# Other", idempotencyKey: "convert-key-0001" })
      t.equal(conflict.error.code, "idempotency_conflict")
      t.equal(conflict.error.retryable, false)
      const fresh = await call(client, "convert_markdown", args)
      t.not(fresh.structured.job.id, first.structured.job.id, "without a key a call always executes")
    })

    await t.test("the document lifecycle through tools, on channel mcp_v2", async (t) => {
      const created = await call(client, "create_document", { ...documentArguments(), idempotencyKey: "create-key-0001" })
      const documentId = created.structured.document.id
      const replayed = await call(client, "create_document", { ...documentArguments(), idempotencyKey: "create-key-0001" })
      t.equal(replayed.structured.document.id, documentId, "replayed: one document")
      const listed = await call(client, "list_documents", { limit: 10 })
      t.equal(listed.structured.documents.filter((document: any) => document.id === documentId).length, 1)

      const revised = await call(client, "create_revision", {
        documentId,
        markdown: "# Ada Lovelace\n\nNotes on the engine, revised.",
        parentRevisionId: created.structured.revision.id,
        spec: { locale: "en", templateId: "clean" }
      })
      const revisionId = revised.structured.revision.id
      t.equal((await call(client, "get_document", { documentId })).structured.latestRevision.id, revisionId)

      const settled = (jobId: string) =>
        until(`job ${jobId} ends`, async () => {
          const { structured } = await call(client, "get_job", { jobId })
          return ["succeeded", "failed", "cancelled"].includes(structured.job.status) ? structured : undefined
        })
      const preview = await call(client, "preview_revision", { documentId, ...output(revisionId, "preview.pdf") })
      t.equal(preview.structured.job.provenance.channel, "mcp_v2")
      t.equal((await settled(preview.structured.job.id)).job.status, "succeeded")

      const published = await call(client, "publish_revision", { documentId, ...output(revisionId), idempotencyKey: "publish-key-01" })
      const final = await settled(published.structured.job.id)
      t.equal(final.job.purpose, "final")
      t.equal(final.job.provenance.channel, "mcp_v2")
      const link = await call(client, "create_download_link", { artifactId: final.artifact.id })
      t.match(await downloadText(link.structured.href), /Notes on the engine, revised/)

      const ended = await call(client, "cancel_job", { jobId: final.job.id })
      t.equal(ended.error.code, "invalid_state_transition", "an ended job cannot be cancelled")
    })

    await t.test("scopes, owners and units as REST", async (t) => {
      const { structured } = await call(client, "create_document", documentArguments("# Owned", "task-owned"))
      const documentId = structured.document.id
      const revisionId = structured.revision.id

      const previewOnly = await createAccount(server, { scopes: ["documents.read", "documents.preview"] })
      const limited = await connect(server.url, previewOnly.key)
      t.teardown(() => limited.close())
      const own = await call(limited, "create_document", documentArguments("# Mine", "task-mine"))
      const refused = await call(limited, "publish_revision", {
        documentId: own.structured.document.id,
        ...output(own.structured.revision.id)
      })
      t.equal(refused.error.code, "forbidden", "a key without documents.render cannot publish")
      t.equal((await call(limited, "get_document", { documentId })).error.code, "not_found", "another owner's document")
      t.equal((await call(limited, "preview_revision", { documentId, ...output(revisionId) })).error.code, "not_found")

      const exhausted = await createAccount(server, { monthlyUnits: 0 })
      const broke = await connect(server.url, exhausted.key)
      t.teardown(() => broke.close())
      t.equal((await call(broke, "convert_markdown", { markdown: "# No units" })).error.code, "quota_exhausted")
    })

    await t.test("hostile arguments are invalid_request results, never a transport error", async (t) => {
      const cases: Array<[string, string, Record<string, unknown>]> = [
        ["a wrong type", "get_document", { documentId: 42 }],
        ["an unknown field", "get_job", { jobId: "5f0e2c1a-6d0b-4f5e-9a1b-0c2d3e4f5a6b", extra: true }],
        ["a missing field", "create_document", { taskId: "x" }],
        ["200,001 characters", "convert_markdown", { markdown: "a".repeat(200_001) }],
        ["200,001 characters in a revision", "create_document", documentArguments("a".repeat(200_001), "task-long")],
        ["a NUL in a task id", "create_document", documentArguments("# x", "task\u0000nul")],
        ["a bad idempotency key", "create_document", { ...documentArguments(), idempotencyKey: "short" }],
        ["an unknown template", "convert_markdown", { markdown: "# x", templateId: "nope" }],
        ["an unknown tool", "drop_tables", {}]
      ]
      for (const [what, name, args] of cases) {
        const { raw, error } = await call(client, name, args)
        t.equal(raw.isError, true, `${what}: an error result`)
        t.equal(raw.structuredContent, undefined, `${what}: no structuredContent`)
        t.equal(raw.content.length, 1)
        t.equal(error?.code, "invalid_request", `${what}: invalid_request`)
      }
    })

    await t.test("resources: each template and the Markdown guide", async (t) => {
      const { resources } = await client.listResources()
      t.ok(resources.some((resource) => resource.uri === "pressroom://guides/markdown"))
      t.equal(resources.filter((resource) => resource.uri.startsWith("pressroom://templates/")).length, 57)
      const { resourceTemplates } = await client.listResourceTemplates()
      t.equal(resourceTemplates[0]?.uriTemplate, "pressroom://templates/{templateId}")
      const guide = await client.readResource({ uri: "pressroom://guides/markdown" })
      const text = (guide.contents[0] as { text: string }).text
      for (const topic of ["Front matter", "$$", "Tables", "Footnotes", "refused"]) t.ok(text.includes(topic), `the guide covers ${topic}`)
      const resume = await client.readResource({ uri: "pressroom://templates/resume" })
      t.match((resume.contents[0] as { text: string }).text, /Front matter: name.*headline/s)
      const image = resume.contents.find((content) => content.mimeType === "image/png") as { blob: string } | undefined
      t.ok(image && Buffer.from(image.blob, "base64").subarray(1, 4).toString() === "PNG", "the gallery image")
      await t.rejects(client.readResource({ uri: "pressroom://templates/nope" }))
    })

    await t.test("pressroom mcp over stdio forwards to the server", async (t) => {
      const stdio = new Client({ name: "pressroom-stdio-test", version: "1" })
      await stdio.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, "mcp"],
          env: childEnv({ PRESSROOM_URL: server.url, PRESSROOM_API_KEY: owner.key }) as Record<string, string>,
          stderr: "pipe"
        })
      )
      t.teardown(() => stdio.close())
      t.same(
        (await stdio.listTools()).tools.map((tool) => tool.name),
        TOOLS
      )
      const converted = await call(stdio, "convert_markdown", { markdown: "# Over stdio\n\nForwarded." })
      t.match(await downloadText(converted.structured.link.href), /Over stdio/)
      t.equal((await call(stdio, "get_job", { jobId: "nope" })).error.code, "invalid_request")

      const run = (env: Record<string, string>) =>
        spawnSync(process.execPath, [BIN, "mcp"], { env: childEnv({ PRESSROOM_URL: "", PRESSROOM_API_KEY: "", ...env }), encoding: "utf8" })
      const missing = run({ PRESSROOM_API_KEY: owner.key })
      t.equal(missing.status, 1)
      t.match(missing.stderr, /^pressroom mcp: PRESSROOM_URL is not set[^\n]*\n$/)
      const keyless = run({ PRESSROOM_URL: server.url })
      t.equal(keyless.status, 1)
      t.match(keyless.stderr, /^pressroom mcp: PRESSROOM_API_KEY is not set[^\n]*\n$/)
      const refused = run({ PRESSROOM_URL: server.url, PRESSROOM_API_KEY: "pk_live_00000000000000000000000000000000" })
      t.equal(refused.status, 1)
      t.match(refused.stderr, /^pressroom mcp: [^\n]*refused PRESSROOM_API_KEY[^\n]*\n$/)
    })
  })
)
