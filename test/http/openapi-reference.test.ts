/**
 * The reference reads as documentation (issue 38): the OpenAPI document the server serves has an
 * introduction with the sections a newcomer needs and every scope, a description for every tag,
 * a summary for every operation, naming what authorises it, and for every JSON request body,
 * every JSON success response and every error response an example that validates against its
 * schema. Read from the API
 * definition in process, as the server generates it.
 */
import { OpenApi } from "@effect/platform"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import t from "tap"
import { ApiScope } from "../../src/accounts/principal.ts"
import { PressroomApi } from "../../src/http/api.ts"
import { packageRoot } from "../../src/render/fonts/manifest.ts"

const spec = OpenApi.fromApi(PressroomApi)
const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([, operation]) => typeof operation === "object" && operation !== null && "operationId" in operation)
    .map(([method, operation]) => ({
      path,
      method,
      ...(operation as {
        operationId: string
        summary?: string
        description?: string
        requestBody?: any
        responses: Record<string, any>
      })
    }))
)

t.test("the introduction covers authentication, units, idempotency, polling, errors and webhooks", async (t) => {
  const introduction = spec.info.description ?? ""
  for (const section of ["Authentication and scopes", "Units", "Idempotency and retries", "Polling", "Errors", "Webhooks"]) {
    t.match(introduction, `## ${section}`, section)
  }
  for (const scope of ApiScope.literals) t.match(introduction, `\`${scope}\``, `lists the scope ${scope}`)
  t.match(introduction, "A key made with `{}`", "says a key made with {} has every scope")
})

t.test("every tag has a description", async (t) => {
  t.ok(spec.tags.length > 0)
  for (const tag of spec.tags) t.ok(tag.description, tag.name)
})

t.test("every operation has a summary that names what authorises it, and a description", async (t) => {
  t.ok(operations.length >= 33, `${operations.length} operations`)
  for (const operation of operations) {
    const summary = operation.summary ?? ""
    t.ok(summary, `${operation.operationId} has a summary`)
    t.ok(operation.description, `${operation.operationId} has a description`)
    if (operation.path.startsWith("/admin/")) t.match(summary, "admin token", `${operation.operationId} names the admin token`)
    else if (/^(artifactLinks|ops)\./.test(operation.operationId))
      continue // no credential: a signed link, or an operations endpoint
    else t.match(summary, /scope (documents|templates|webhooks)\.\w+/, `${operation.operationId} names its scope`)
  }
})

const ajv = new Ajv2020({ strict: false, allErrors: true })
;(addFormats as unknown as (ajv: Ajv2020) => void)(ajv)
ajv.addSchema(spec, "openapi")
const pointer = (...parts: Array<string>) => parts.map((part) => part.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")
/** The schema at `parts` of the document, by reference, so that its own references resolve. */
const schemaAt = (...parts: Array<string>) => ({ $ref: `openapi#/${pointer(...parts)}` })

t.test("every JSON request body has an example its schema accepts", async (t) => {
  const withBodies = operations.filter((operation) => operation.requestBody?.content?.["application/json"])
  t.ok(withBodies.length >= 15, `${withBodies.length} operations take a JSON body`)
  for (const operation of withBodies) {
    const { example } = operation.requestBody.content["application/json"]
    t.not(example, undefined, `${operation.operationId} has an example`)
    const schema = schemaAt("paths", operation.path, operation.method, "requestBody", "content", "application/json", "schema")
    t.ok(ajv.validate(schema, example), `${operation.operationId}'s example validates`, { errors: ajv.errors })
  }
})

t.test("every JSON success response has an example its schema accepts", async (t) => {
  const successes = operations.flatMap((operation) =>
    Object.entries(operation.responses)
      .filter(([status, response]) => status.startsWith("2") && response.content?.["application/json"])
      .map(([status, response]) => ({ ...operation, status, media: response.content["application/json"] }))
  )
  t.ok(successes.length >= 33, `${successes.length} JSON success responses`)
  for (const { operationId, path, method, status, media } of successes) {
    const name = `${operationId} ${status}`
    t.not(media.example, undefined, `${name} has an example`)
    const schema = schemaAt("paths", path, method, "responses", status, "content", "application/json", "schema")
    t.ok(ajv.validate(schema, media.example), `${name}'s example validates`, { errors: ajv.errors })
  }
})

t.test("every error response has an example of its envelope that its schema accepts", async (t) => {
  const errors = operations.flatMap((operation) =>
    Object.entries(operation.responses)
      .filter(([status]) => /^[45]/.test(status))
      .map(([status, response]) => ({ ...operation, status, media: response.content?.["application/json"] }))
  )
  t.ok(errors.length >= 200, `${errors.length} error responses`)
  for (const { operationId, path, method, status, media } of errors) {
    const name = `${operationId} ${status}`
    t.ok(media, `${name} is JSON`)
    t.not(media?.example, undefined, `${name} has an example`)
    const schema = schemaAt("paths", path, method, "responses", status, "content", "application/json", "schema")
    t.ok(ajv.validate(schema, media?.example), `${name}'s example validates`, { errors: ajv.errors })
    if (operationId === "ops.readyz" && status === "503") continue // a readiness body, not an error envelope
    const { error } = media.example
    t.equal(error.httpStatus, Number(status), `${name}'s example is answered with ${status}`)
    t.equal("contractVersion" in media.example, path.startsWith("/api/v2"), `${name}'s envelope is its API's`)
  }
})

t.test("error examples say what the operation answers", async (t) => {
  const example = (operationId: string, status: string) =>
    operations.find((operation) => operation.operationId === operationId)!.responses[status].content["application/json"].example
  t.match(example("documents.get", "404"), {
    contractVersion: "publishing.lifecycle.v1",
    error: { code: "not_found", message: "document not found" }
  })
  t.match(example("jobs.cancel", "409").error, {
    code: "invalid_state_transition",
    details: { expectedStates: ["accepted", "queued", "running"] }
  })
  t.match(example("documents.delete", "409").error, { code: "idempotency_conflict", retryable: false })
  t.match(example("documents.get", "401").error, { code: "unauthorized", category: "authentication" })
  t.match(example("admin.getAccount", "401"), { error: { code: "unauthorized", message: /admin token/ } })
  t.notOk("contractVersion" in example("admin.getAccount", "401"), "admin answers in the v1 envelope")
  t.match(example("documents.createRevision", "422").error, { code: "invalid_request", message: /^spec\.templateId: / })
  t.match(example("documents.create", "403").error.message, "documents.render or documents.preview")
  t.match(example("documents.get", "429").error, { code: "rate_limited", retryable: true, details: { retryAfterSeconds: 12 } })
  t.match(example("v1.convert", "415").error, { code: "invalid_request", httpStatus: 415 })
})

t.test("every operation's success is a JSON body with an example, a PDF, Prometheus text or no body", async (t) => {
  for (const operation of operations) {
    const media = Object.entries(operation.responses)
      .filter(([status]) => status.startsWith("2"))
      .flatMap(([, response]) => Object.keys(response.content ?? {}))
    t.ok(
      media.every((type) => ["application/json", "application/pdf", "text/plain; version=0.0.4"].includes(type)),
      `${operation.operationId} answers ${media.join(", ") || "no body"}`
    )
  }
})

t.test("every PDF response is declared binary, so the reference shows a file and not {}", async (t) => {
  const pdfs = operations.flatMap((operation) =>
    Object.entries(operation.responses)
      .filter(([, response]) => response.content?.["application/pdf"])
      .map(([status, response]) => ({ name: `${operation.operationId} ${status}`, schema: response.content["application/pdf"].schema }))
  )
  t.ok(pdfs.length >= 3, `${pdfs.length} PDF responses`)
  for (const { name, schema } of pdfs) t.match(schema, { type: "string", format: "binary" }, name)
})

t.test("docs/client.md describes every method of pressroom/client in its tables", async (t) => {
  const clientDoc = readFileSync(join(packageRoot, "docs", "client.md"), "utf8")
  for (const group of Object.values(PressroomApi.groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      const method = `${group.identifier}.${endpoint.name}`
      // A row: method | request | result | errors | resent (yes or no).
      t.match(clientDoc, new RegExp(`^\\| \`${method.replace(".", "\\.")}\` \\|.+\\|.+\\|.+\\| (yes|no) \\|$`, "m"), method)
    }
  }
})
