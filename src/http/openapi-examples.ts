/**
 * A request example for every operation that takes a JSON body (issue 38), put into the OpenAPI
 * document so that the reference shows, and its generated curl sends, a body the API accepts
 * instead of one of empty strings. test/http/openapi-reference.test.ts validates each against
 * its operation's schema.
 */

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
  "admin.addCreditPacks": { packs: 2 }
}

/** The document with each JSON request body's example. */
export const withRequestExamples = (document: Json): Json => {
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) => {
        const example = operation?.operationId === undefined ? undefined : REQUEST_EXAMPLES[operation.operationId]
        const json = operation?.requestBody?.content?.["application/json"]
        if (example === undefined || json === undefined || json.example !== undefined) return [method, operation]
        const requestBody = {
          ...operation.requestBody,
          content: { ...operation.requestBody.content, "application/json": { ...json, example } }
        }
        return [method, { ...operation, requestBody }]
      })
    )
  }
  return { ...document, paths }
}
