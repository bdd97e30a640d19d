/**
 * The reference reads as documentation (issue 38): the OpenAPI document the server serves has an
 * introduction with the sections a newcomer needs and every scope, a description for every tag,
 * and a summary for every operation, naming what authorises it. Read from the API definition in
 * process, as the server generates it.
 */
import { OpenApi } from "@effect/platform"
import t from "tap"
import { ApiScope } from "../../src/accounts/principal.ts"
import { PressroomApi } from "../../src/http/api.ts"

const spec = OpenApi.fromApi(PressroomApi)
const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([, operation]) => typeof operation === "object" && operation !== null && "operationId" in operation)
    .map(([method, operation]) => ({ path, method, ...(operation as { operationId: string; summary?: string }) }))
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

t.test("every operation has a summary that names what authorises it", async (t) => {
  t.ok(operations.length >= 33, `${operations.length} operations`)
  for (const operation of operations) {
    const summary = operation.summary ?? ""
    t.ok(summary, `${operation.operationId} has a summary`)
    if (operation.path.startsWith("/admin/")) t.match(summary, "admin token", `${operation.operationId} names the admin token`)
    else if (/^(artifactLinks|ops)\./.test(operation.operationId))
      continue // no credential: a signed link, or an operations endpoint
    else t.match(summary, /scope (documents|templates|webhooks)\.\w+/, `${operation.operationId} names its scope`)
  }
})
