/**
 * The OpenAPI document tells the truth: real responses of a running server, successes and
 * errors, validate against the schema the document gives for their path, method and status, and
 * carry the headers it declares. Also: the human-readable `/docs` page and the Prometheus
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
    t.match(text, /^pressroom_render_duration_seconds_count\{outcome="succeeded"\} 1$/m, "render duration histogram")
    t.match(text, /^pressroom_render_duration_seconds_bucket\{le="\+Inf",outcome="succeeded"\} 1$/m)
    t.match(text, /^pressroom_jobs\{status="succeeded"\} 1$/m, "jobs by status")
    t.match(text, /^pressroom_queue_depth 0$/m, "queue depth")
    t.match(text, /^pressroom_units\{state="committed"\} 1$/m, "units committed")
    t.match(text, /^pressroom_units\{state="reserved"\} 0$/m, "units reserved")
    for (const reason of Object.keys(noWorkerReplacements)) {
      t.match(
        text,
        new RegExp(`^pressroom_render_worker_replacements_total\\{reason="${reason}"\\} 0$`, "m"),
        `workers replaced: ${reason}`
      )
    }
  })
})
