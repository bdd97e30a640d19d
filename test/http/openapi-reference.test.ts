/**
 * The reference reads as documentation (issue 38): the OpenAPI document the server serves has an
 * introduction with the sections a newcomer needs and every scope, a description for every tag,
 * a summary for every operation, naming what authorises it, and for every JSON request body an
 * example that validates against its schema. Read from the API definition in process, as the
 * server generates it.
 */
import { OpenApi } from "@effect/platform"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import t from "tap"
import { ApiScope } from "../../src/accounts/principal.ts"
import { PressroomApi } from "../../src/http/api.ts"

const spec = OpenApi.fromApi(PressroomApi)
const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([, operation]) => typeof operation === "object" && operation !== null && "operationId" in operation)
    .map(([method, operation]) => ({
      path,
      method,
      ...(operation as { operationId: string; summary?: string; description?: string; requestBody?: any })
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

t.test("every JSON request body has an example its schema accepts", async (t) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  ;(addFormats as unknown as (ajv: Ajv2020) => void)(ajv)
  ajv.addSchema(spec, "openapi")
  const pointer = (...parts: Array<string>) => parts.map((part) => part.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")
  const withBodies = operations.filter((operation) => operation.requestBody?.content?.["application/json"])
  t.ok(withBodies.length >= 14, `${withBodies.length} operations take a JSON body`)
  for (const operation of withBodies) {
    const { example } = operation.requestBody.content["application/json"]
    t.not(example, undefined, `${operation.operationId} has an example`)
    const schema = {
      $ref: `openapi#/${pointer("paths", operation.path, operation.method, "requestBody", "content", "application/json", "schema")}`
    }
    t.ok(ajv.validate(schema, example), `${operation.operationId}'s example validates`, { errors: ajv.errors })
  }
})
