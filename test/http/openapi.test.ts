/**
 * The OpenAPI document tells the truth: real responses of a running server, successes and
 * errors, validate against the schema the document gives for their path, method and status, and
 * carry the headers it declares; every v2 operation is declared with the statuses the
 * specification and the contract give it. Also: the human-readable `/docs` page and the Prometheus
 * `/metrics` the operations endpoints promise.
 */
import t from "tap"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { randomUUID } from "node:crypto"
import { convert, requestJson } from "../helpers/api.ts"
import { freshDatabase } from "../helpers/database.ts"
import { ADMIN_TOKEN, startServer } from "../helpers/server.ts"
import { noWorkerReplacements } from "../../src/render/engine/engine.ts"

t.test("a running server against its own document", async (t) => {
  const database = await freshDatabase("pglite")
  t.teardown(database.drop)
  const server = await startServer(t, { ...database.env, PRESSROOM_RATE_LIMIT_CONVERT_PER_MINUTE: "3" })

  const documentResponse = await fetch(`${server.url}/api/v2/openapi.json`)
  t.equal(documentResponse.status, 200)
  const document = await documentResponse.json()
  t.equal(document.openapi, "3.1.0")

  const ajv = new Ajv2020({ strict: false, allErrors: true })
  ;(addFormats as unknown as (ajv: Ajv2020) => void)(ajv)
  ajv.addSchema(document, "openapi")

  const pointer = (...parts: Array<string>) => parts.map((part) => part.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")

  interface Observed {
    readonly name: string
    readonly path: string
    readonly method: string
    readonly status: number
    readonly headers: Headers
    readonly body: unknown
    readonly contentType: string | null
  }

  const observed: Array<Observed> = []
  const call = async (name: string, path: string, method: string, realPath: string, options: Parameters<typeof requestJson>[3] = {}) => {
    const response = await requestJson(server, method, realPath, options)
    observed.push({
      name,
      path,
      method: method.toLowerCase(),
      status: response.status,
      headers: response.headers,
      body: response.body,
      contentType: response.headers.get("content-type")
    })
    return response
  }
  const callConvert = async (name: string, key: string | undefined, body: unknown, options: Parameters<typeof convert>[3] = {}) => {
    const response = await convert(server, key, body, options)
    observed.push({
      name,
      path: "/api/v1/convert",
      method: "post",
      status: response.status,
      headers: response.headers,
      body: response.error,
      contentType: response.headers.get("content-type")
    })
    return response
  }

  // Successes and errors across the groups.
  const account = await call("create account", "/admin/v1/accounts", "POST", "/admin/v1/accounts", {
    token: ADMIN_TOKEN,
    body: { name: "Docs", plan: "monthly" }
  })
  const accountId = account.body.account.id as string
  const key = await call("create key", "/admin/v1/accounts/{accountId}/keys", "POST", `/admin/v1/accounts/${accountId}/keys`, {
    token: ADMIN_TOKEN,
    body: {}
  })
  const secret = key.body.secret as string
  await call("account usage", "/admin/v1/accounts/{accountId}", "GET", `/admin/v1/accounts/${accountId}`, { token: ADMIN_TOKEN })
  await call("unknown account", "/admin/v1/accounts/{accountId}", "GET", `/admin/v1/accounts/${randomUUID()}`, { token: ADMIN_TOKEN })
  await call("credit packs", "/admin/v1/accounts/{accountId}/credit-packs", "POST", `/admin/v1/accounts/${accountId}/credit-packs`, {
    token: ADMIN_TOKEN,
    body: { packs: 1 }
  })
  await call("admin without token", "/admin/v1/accounts", "POST", "/admin/v1/accounts", { body: { name: "x", plan: "free" } })
  const template = await call("create template", "/api/v2/templates", "POST", "/api/v2/templates", {
    token: secret,
    headers: { "idempotency-key": `docs-${randomUUID()}` },
    body: { name: "Letterhead", baseTemplateId: "coverletter", options: { paper: "us-letter", pageNumbers: true } }
  })
  await call("list templates", "/api/v2/templates", "GET", "/api/v2/templates", { token: secret })
  await call("get template", "/api/v2/templates/{templateId}", "GET", `/api/v2/templates/${template.body.template.id}`, { token: secret })
  await call("unknown template", "/api/v2/templates/{templateId}", "GET", `/api/v2/templates/${randomUUID()}`, { token: secret })
  await call("template without idempotency key", "/api/v2/templates", "POST", "/api/v2/templates", {
    token: secret,
    body: { name: "x", baseTemplateId: "clean", options: {} }
  })
  await call("template with bad colour", "/api/v2/templates", "POST", "/api/v2/templates", {
    token: secret,
    headers: { "idempotency-key": `docs-${randomUUID()}` },
    body: { name: "x", baseTemplateId: "clean", options: { bodyTextColor: "red" } }
  })
  // The v2 lifecycle: each operation's success and its usual refusals.
  const v2 = (name: string, path: string, method: string, realPath: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(name, path, method, realPath, {
      token: secret,
      headers: { ...(method === "GET" || path.endsWith("/links") ? {} : { "idempotency-key": `docs-${randomUUID()}` }), ...headers },
      ...(body === undefined ? {} : { body })
    })
  const revision = { markdown: "# Documented", parentRevisionId: null, spec: { locale: "en", templateId: "clean", options: {} } }
  const created = await v2("create document", "/api/v2/documents", "POST", "/api/v2/documents", { taskId: "docs", title: null, revision })
  const documentId = created.body.document.id as string
  const revisionId = created.body.revision.id as string
  const documentPath = "/api/v2/documents/{documentId}"
  const output = { filename: "documented.pdf", format: "pdf" }
  await v2("create document 400", "/api/v2/documents", "POST", "/api/v2/documents", { taskId: "Docs", title: null, revision })
  await v2("create document 422", "/api/v2/documents", "POST", "/api/v2/documents", {
    taskId: "docs",
    title: null,
    revision: { ...revision, markdown: "" }
  })
  await v2("list documents", "/api/v2/documents", "GET", "/api/v2/documents?limit=1")
  await v2("get document", documentPath, "GET", `/api/v2/documents/${documentId}`)
  await v2("unknown document", documentPath, "GET", `/api/v2/documents/${randomUUID()}`)
  await v2("create revision", `${documentPath}/revisions`, "POST", `/api/v2/documents/${documentId}/revisions`, revision)
  await v2("create revision 415", `${documentPath}/revisions`, "POST", `/api/v2/documents/${documentId}/revisions`, revision, {
    "content-type": "text/plain"
  })
  await v2("preview", `${documentPath}/previews`, "POST", `/api/v2/documents/${documentId}/previews`, { revisionId, output })
  const published = await v2("publication", `${documentPath}/publishes`, "POST", `/api/v2/documents/${documentId}/publishes`, {
    revisionId,
    output
  })
  await v2("publication 422", `${documentPath}/publishes`, "POST", `/api/v2/documents/${documentId}/publishes`, {
    revisionId,
    output: { ...output, format: "docx" }
  })
  const jobId = published.body.job.id as string
  const artifactId = published.body.artifact.id as string
  await v2("get job", "/api/v2/jobs/{jobId}", "GET", `/api/v2/jobs/${jobId}`)
  await v2("cancel an ended job", "/api/v2/jobs/{jobId}/cancel", "POST", `/api/v2/jobs/${jobId}/cancel`)
  const linkPath = "/api/v2/artifacts/{artifactId}/links"
  await v2("create link", linkPath, "POST", `/api/v2/artifacts/${artifactId}/links`)
  await v2("link of an unknown artifact", linkPath, "POST", `/api/v2/artifacts/${randomUUID()}/links`)
  await v2(
    "download of an unknown artifact",
    "/api/v2/artifacts/{artifactId}/download",
    "GET",
    `/api/v2/artifacts/${randomUUID()}/download`
  )
  const deletionKey = { "idempotency-key": `docs-${randomUUID()}` }
  await v2("delete document", documentPath, "DELETE", `/api/v2/documents/${documentId}`, undefined, deletionKey)
  await v2(
    "delete with a reused key",
    documentPath,
    "DELETE",
    `/api/v2/documents/${created.body.document.id.replace(/^./, "0")}`,
    undefined,
    deletionKey
  )
  await v2("revision of a deleted document", `${documentPath}/revisions`, "POST", `/api/v2/documents/${documentId}/revisions`, revision)
  const readOnly = await requestJson(server, "POST", `/admin/v1/accounts/${accountId}/keys`, {
    token: ADMIN_TOKEN,
    body: { scopes: ["documents.read"] }
  })
  await call("publication without its scope", `${documentPath}/publishes`, "POST", `/api/v2/documents/${documentId}/publishes`, {
    token: readOnly.body.secret,
    headers: { "idempotency-key": `docs-${randomUUID()}` },
    body: { revisionId, output }
  })

  // Webhook subscriptions: each operation's success and its usual refusals.
  const webhook = await v2("create webhook", "/api/v2/webhooks", "POST", "/api/v2/webhooks", {
    endpoint: "https://hooks.example.com/pressroom",
    eventTypes: ["job.succeeded"]
  })
  const webhookId = webhook.body.subscription.id as string
  const webhookPath = "/api/v2/webhooks/{webhookId}"
  await v2("create webhook 422", "/api/v2/webhooks", "POST", "/api/v2/webhooks", {
    endpoint: "http://x.example/",
    eventTypes: ["job.failed"]
  })
  await v2("create webhook 400", "/api/v2/webhooks", "POST", "/api/v2/webhooks", { endpoint: "https://x.example/", eventTypes: [] })
  await v2("list webhooks", "/api/v2/webhooks", "GET", "/api/v2/webhooks")
  await v2("rotate secret", `${webhookPath}/rotate-secret`, "POST", `/api/v2/webhooks/${webhookId}/rotate-secret`, {})
  await v2("rotate an unknown webhook", `${webhookPath}/rotate-secret`, "POST", `/api/v2/webhooks/${randomUUID()}/rotate-secret`)
  await v2("list deliveries", `${webhookPath}/deliveries`, "GET", `/api/v2/webhooks/${webhookId}/deliveries?limit=5`)
  await v2(
    "redeliver an unknown delivery",
    `${webhookPath}/deliveries/{deliveryId}/redeliver`,
    "POST",
    `/api/v2/webhooks/${webhookId}/deliveries/${randomUUID()}/redeliver`,
    {}
  )
  await v2("disable webhook", `${webhookPath}/disable`, "POST", `/api/v2/webhooks/${webhookId}/disable`, {})
  await v2("disable a disabled webhook", `${webhookPath}/disable`, "POST", `/api/v2/webhooks/${webhookId}/disable`, {})
  await call("list webhooks without its scope", "/api/v2/webhooks", "GET", "/api/v2/webhooks", { token: readOnly.body.secret })

  await call("healthz", "/healthz", "GET", "/healthz")
  await call("readyz", "/readyz", "GET", "/readyz")
  const pdf = await callConvert("convert", secret, { markdown: "# Documented\n\nTruthfully." })
  await callConvert("convert 400", secret, { markdown: 7 })
  await callConvert("convert 401", undefined, { markdown: "x" })
  await callConvert("convert 415", secret, { markdown: "x" }, { contentType: "text/plain" })
  await callConvert("convert 422", secret, { markdown: "x", locale: "xx" })
  await callConvert("convert 404", secret, { markdown: "x", customTemplateId: randomUUID() })
  const limited = await callConvert("convert 429", secret, { markdown: "x" })
  t.equal(pdf.status, 200)
  t.equal(limited.status, 429, "the fourth conversion in a minute is rate limited")

  for (const response of observed) {
    t.test(`${response.name}: ${response.method.toUpperCase()} ${response.path} ${response.status}`, async (t) => {
      const declared = document.paths[response.path]?.[response.method]?.responses?.[String(response.status)]
      t.ok(declared, "the status is declared for this operation")
      if (!declared) return
      for (const name of Object.keys(declared.headers ?? {})) {
        if (name === "Idempotency-Replayed") continue // only on replays
        t.ok(response.headers.get(name), `header ${name} is sent`)
      }
      const mediaType = response.contentType?.split(";")[0] ?? ""
      t.ok(declared.content?.[mediaType], `content type ${mediaType} is declared`)
      if (mediaType !== "application/json") return
      const validate = ajv.getSchema(
        `openapi#/${pointer("paths", response.path, response.method, "responses", String(response.status), "content", "application/json", "schema")}`
      )
      t.ok(validate, "a schema is declared")
      if (validate && !validate(response.body))
        t.fail("the body matches the declared schema", { errors: validate.errors, body: response.body })
      else t.pass("the body matches the declared schema")
    })
  }

  t.test("every v2 operation is declared with its statuses (specification sections 4 and 7, contract sections 3 and 5)", async (t) => {
    // The specification's statuses where it lists them (preview, publication, link), and else the
    // contract's: 400 for a path, query, body or Idempotency-Key, 413 and 415 for a body, 500
    // (internal_error) anywhere.
    const expected: Record<string, ReadonlyArray<number>> = {
      "post /api/v2/documents": [201, 400, 401, 403, 409, 413, 415, 422, 429],
      "get /api/v2/documents": [200, 400, 401, 403, 429],
      "get /api/v2/documents/{documentId}": [200, 400, 401, 403, 404, 429],
      "delete /api/v2/documents/{documentId}": [202, 400, 401, 403, 404, 409, 429],
      "post /api/v2/documents/{documentId}/revisions": [201, 400, 401, 403, 404, 409, 413, 415, 422, 429],
      "post /api/v2/documents/{documentId}/previews": [200, 202, 400, 401, 403, 404, 409, 413, 415, 422, 429, 503],
      "post /api/v2/documents/{documentId}/publishes": [200, 202, 400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 503],
      "get /api/v2/jobs/{jobId}": [200, 400, 401, 403, 404, 429],
      "post /api/v2/jobs/{jobId}/cancel": [200, 202, 400, 401, 403, 404, 409, 413, 415, 429],
      "get /api/v2/artifacts/{artifactId}/download": [200, 304, 400, 401, 403, 404, 410, 429, 503],
      "post /api/v2/artifacts/{artifactId}/links": [201, 400, 401, 403, 404, 410, 429, 503],
      "post /api/v2/webhooks": [201, 400, 401, 403, 409, 413, 415, 422, 429],
      // HttpApi declares 400 on every endpoint, even one without parameters (as on the templates' list).
      "get /api/v2/webhooks": [200, 400, 401, 403, 429],
      "post /api/v2/webhooks/{webhookId}/rotate-secret": [200, 400, 401, 403, 404, 409, 413, 415, 429],
      "post /api/v2/webhooks/{webhookId}/disable": [200, 400, 401, 403, 404, 409, 413, 415, 429],
      // Extensions of the specification: the delivery history.
      "get /api/v2/webhooks/{webhookId}/deliveries": [200, 400, 401, 403, 404, 429],
      "post /api/v2/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver": [202, 400, 401, 403, 404, 409, 413, 415, 429]
    }
    const mutations = new Set([
      "post /api/v2/documents",
      "delete /api/v2/documents/{documentId}",
      "post /api/v2/documents/{documentId}/revisions",
      "post /api/v2/documents/{documentId}/previews",
      "post /api/v2/documents/{documentId}/publishes",
      "post /api/v2/jobs/{jobId}/cancel",
      "post /api/v2/webhooks",
      "post /api/v2/webhooks/{webhookId}/rotate-secret",
      "post /api/v2/webhooks/{webhookId}/disable",
      "post /api/v2/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver"
    ])
    for (const [operation, statuses] of Object.entries(expected)) {
      const [method, path] = operation.split(" ") as [string, string]
      const declared = document.paths[path]?.[method]
      t.ok(declared, `${operation} is in the document`)
      if (!declared) continue
      t.same(Object.keys(declared.responses).map(Number).sort(), [...statuses, 500].sort(), `${operation}: its statuses`)
      const parameters = (declared.parameters ?? []) as Array<{ in: string; name: string; required?: boolean }>
      const key = parameters.find((parameter) => parameter.in === "header" && parameter.name.toLowerCase() === "idempotency-key")
      t.equal(
        Boolean(key?.required),
        mutations.has(operation),
        `${operation}: Idempotency-Key ${mutations.has(operation) ? "required" : "not taken"}`
      )
      for (const name of path.match(/\{(\w+)\}/g)?.map((part) => part.slice(1, -1)) ?? []) {
        const parameter = parameters.find((candidate) => candidate.in === "path" && candidate.name === name) as { schema?: any } | undefined
        const schema = parameter?.schema?.$ref ? document.components.schemas[parameter.schema.$ref.split("/").at(-1)] : parameter?.schema
        t.equal(schema?.format, "uuid", `${operation}: ${name} is a uuid`)
      }
    }
    // A response that shows a signing secret may not be cached; one that does not says nothing.
    const cacheControl = (operation: string, status: number) => {
      const [method, path] = operation.split(" ") as [string, string]
      return document.paths[path]?.[method]?.responses?.[String(status)]?.headers?.["Cache-Control"]?.schema?.enum
    }
    t.same(cacheControl("post /api/v2/webhooks", 201), ["no-store"], "create webhook: Cache-Control no-store")
    t.same(cacheControl("post /api/v2/webhooks/{webhookId}/rotate-secret", 200), ["no-store"], "rotate secret: Cache-Control no-store")
    t.equal(cacheControl("get /api/v2/webhooks", 200), undefined, "list webhooks: no secret, no Cache-Control")
    t.equal(cacheControl("post /api/v2/webhooks/{webhookId}/disable", 200), undefined, "disable webhook: no Cache-Control")
    // Every PDF response is kept by no cache; a download by link sends no Referer onwards (issue 30).
    for (const [pdf, status] of [
      ["get /api/v2/artifacts/{artifactId}/download", 200],
      ["get /api/v2/artifact-links/{token}", 200],
      // HEAD is declared without a body.
      ["head /api/v2/artifact-links/{token}", 204],
      ["post /api/v1/convert", 200]
    ] as const) {
      t.same(cacheControl(pdf, status), ["private, no-store"], `${pdf}: Cache-Control private, no-store`)
    }
    const headerOf = (operation: string, status: number, name: string) => {
      const [method, path] = operation.split(" ") as [string, string]
      return document.paths[path]?.[method]?.responses?.[String(status)]?.headers?.[name]?.schema?.enum
    }
    t.same(headerOf("get /api/v2/artifact-links/{token}", 200, "Referrer-Policy"), ["no-referrer"], "link download: Referrer-Policy")
    for (const [path, operations] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        for (const [status, response] of Object.entries<any>(operation.responses ?? {})) {
          if (response.headers?.["X-Content-Type-Options"]?.schema?.enum?.[0] !== "nosniff")
            t.fail(`${method} ${path} ${status}: no X-Content-Type-Options`)
        }
      }
    }
    const listParameters = (document.paths["/api/v2/documents"].get.parameters as Array<{ in: string; name: string }>).filter(
      (parameter) => parameter.in === "query"
    )
    t.same(listParameters.map((parameter) => parameter.name).sort(), ["cursor", "limit"], "list takes limit and cursor")
    const historyParameters = (
      document.paths["/api/v2/webhooks/{webhookId}/deliveries"].get.parameters as Array<{ in: string; name: string }>
    )
      .filter((parameter) => parameter.in === "query")
      .map((parameter) => parameter.name)
    t.same(historyParameters.sort(), ["cursor", "limit"], "the delivery history takes limit and cursor")
  })

  t.test("/docs renders the document for people", async (t) => {
    const response = await fetch(`${server.url}/docs`)
    t.equal(response.status, 200)
    t.match(response.headers.get("content-type"), /^text\/html/)
    const html = await response.text()
    t.match(html, /<title>Pressroom<\/title>/)
    t.match(html, /\/api\/v1\/convert/, "the page carries the operations")
    t.notMatch(html, /<script[^>]+src=["']https?:/, "no script loaded from the network")
  })

  t.test("/metrics in Prometheus text", async (t) => {
    const response = await fetch(`${server.url}/metrics`)
    t.equal(response.status, 200)
    t.match(response.headers.get("content-type"), /^text\/plain; version=0\.0\.4/)
    const text = await response.text()
    t.match(
      text,
      /^pressroom_http_requests_total\{method="POST",route="\/api\/v1\/convert",status="200"\} 1$/m,
      "requests by route and status"
    )
    t.match(text, /^pressroom_http_requests_total\{method="POST",route="\/api\/v1\/convert",status="429"\} 1$/m)
    // The conversion and the preview are rendered; the publication of the previewed revision reuses
    // the preview's bytes. Units for the conversion and the publication.
    t.match(text, /^pressroom_render_duration_seconds_count\{outcome="succeeded"\} 2$/m, "render duration histogram")
    t.match(text, /^pressroom_render_duration_seconds_bucket\{le="\+Inf",outcome="succeeded"\} 2$/m)
    t.match(text, /^pressroom_render_reuses_total 1$/m, "reuses")
    t.match(text, /^pressroom_jobs\{status="succeeded"\} 3$/m, "jobs by status")
    t.match(text, /^pressroom_queue_depth 0$/m, "queue depth")
    t.match(text, /^pressroom_units\{state="committed"\} 2$/m, "units committed")
    t.match(text, /^pressroom_units\{state="reserved"\} 0$/m, "units reserved")
    for (const status of ["pending", "delivered", "failed", "dropped"]) {
      t.match(text, new RegExp(`^pressroom_webhook_deliveries\\{status="${status}"\\} 0$`, "m"), `webhook deliveries ${status}`)
    }
    for (const outcome of ["delivered", "failed", "refused"]) {
      t.match(
        text,
        new RegExp(`^pressroom_webhook_delivery_attempt_duration_seconds_count\\{outcome="${outcome}"\\} 0$`, "m"),
        `webhook delivery attempts ${outcome}`
      )
    }
    t.match(text, /^pressroom_webhook_delivery_queue 0$/m, "webhook delivery queue")
    for (const reason of Object.keys(noWorkerReplacements)) {
      t.match(
        text,
        new RegExp(`^pressroom_render_worker_replacements_total\\{reason="${reason}"\\} 0$`, "m"),
        `workers replaced: ${reason}`
      )
    }
  })
})
