/**
 * A request example for every operation that takes a JSON body (issue 38), put into the OpenAPI
 * document so that the reference shows, and its generated curl sends, a body the API accepts
 * instead of one of empty strings; with them, the response examples of
 * openapi-response-examples.ts and, for every error response, openapi-error-examples.ts. test/http/openapi-reference.test.ts validates each against its
 * operation's schema.
 */

import { errorExample } from "./openapi-error-examples.ts"
import { RESPONSE_EXAMPLES } from "./openapi-response-examples.ts"

// biome-ignore lint/suspicious/noExplicitAny: the generated document is untyped JSON, walked by its known shape
type Json = Record<string, any>

const spec = { locale: "en", templateId: "executive", options: { pageNumbers: true } }
const output = { filename: "q3-report.pdf", format: "pdf" }
const markdown = "# Q3 report\n\nRevenue grew **12%**."

/** By operationId; operations whose body is empty or `{}` take `{}`. */
const REQUEST_EXAMPLES: Readonly<Record<string, unknown>> = {
  "v1.convert": { markdown, templateId: "executive", locale: "en", filename: "q3-report.pdf", options: { pageNumbers: true } },
  "documents.create": { taskId: "q3-report", title: "Q3 report", revision: { markdown, parentRevisionId: null, spec } },
  "documents.createRevision": {
    markdown: `${markdown}\n\nCosts fell 3%.`,
    parentRevisionId: "0f8fad5b-d9cb-469f-a165-70867728950e",
    spec
  },
  "documents.createPreview": { revisionId: "7c9e6679-7425-40de-944b-e07fc1f90ae7", output },
  "documents.createPublication": { revisionId: "7c9e6679-7425-40de-944b-e07fc1f90ae7", output },
  "jobs.cancel": {},
  "templates.create": {
    name: "Acme board report",
    baseTemplateId: "executive",
    options: { pageNumbers: true, headingTextColor: "#0a3d62", paper: "us-letter" }
  },
  "webhooks.create": {
    endpoint: "https://hooks.example.com/pressroom",
    eventTypes: ["job.succeeded", "job.failed"],
    description: "Billing service"
  },
  "webhooks.rotateSecret": {},
  "webhooks.disable": {},
  "webhooks.redeliver": {},
  "admin.createAccount": { name: "Acme", plan: "monthly" },
  "admin.createKey": { scopes: ["documents.render", "documents.read"], environment: "live", expiresAt: null },
  "admin.addCreditPacks": { packs: 2 },
  "membersAdmin.invite": { email: "dana@acme.example" }
}

/** A request body or a response with its JSON example, unless it has one of its own or none is given. */
const withJsonExample = (body: Json, example: unknown): Json => {
  const json = body.content?.["application/json"]
  return json === undefined || example === undefined || json.example !== undefined
    ? body
    : { ...body, content: { ...body.content, "application/json": { ...json, example } } }
}

/** The operation at `path` with its JSON request body's example and each JSON response's, success or error. */
const exemplify = (operation: Json, path: string): Json => {
  const id: string | undefined = operation.operationId
  if (id === undefined) return operation
  const responses = Object.entries<Json>(operation.responses ?? {}).map(([status, response]) => [
    status,
    withJsonExample(response, RESPONSE_EXAMPLES[id]?.[status] ?? errorExample(operation, path, status))
  ])
  return {
    ...operation,
    ...(operation.requestBody && { requestBody: withJsonExample(operation.requestBody, REQUEST_EXAMPLES[id]) }),
    ...(operation.responses && { responses: Object.fromEntries(responses) })
  }
}

/** The document with the examples of every operation's JSON bodies, requests and responses. */
export const withExamples = (document: Json): Json => {
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) => [
        method,
        operation && typeof operation === "object" ? exemplify(operation, path) : operation
      ])
    )
  }
  return { ...document, paths }
}
