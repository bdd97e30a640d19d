/**
 * The custom template endpoints. Each one spends a token of its rate class first (a 429 does
 * nothing else), then checks the key's scope, then works. Creation and deletion run through
 * `Idempotency`; the key's scope is checked before, because a refusal of the key is about the
 * caller, not the request, and must not replay to another key of the same owner.
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { type ApiScope, CurrentPrincipal, requireScope } from "../accounts/principal.ts"
import { type RateClass, RateLimiter } from "../entitlements/rate-limiter.ts"
import { CONTRACT_VERSION, notFound } from "../http/api-error.ts"
import { PressroomApi } from "../http/api.ts"
import { CustomTemplateResponse } from "../http/groups/templates.ts"
import { Idempotency } from "../idempotency/idempotency.ts"
import { type CustomTemplate, toDefinition } from "./custom-template.ts"
import { CustomTemplates } from "./repository.ts"

const toResource = (template: CustomTemplate) => ({
  id: template.id,
  name: template.name,
  baseTemplateId: template.baseTemplateId,
  options: template.options,
  createdAt: template.createdAt.toISOString(),
  deletedAt: template.deletedAt?.toISOString() ?? null
})

/** A response built here rather than by the endpoint, so that `Idempotency` can save it with its headers. */
const templateResponse = (template: CustomTemplate, status: number, headers: Record<string, string> = {}) =>
  HttpServerResponse.schemaJson(CustomTemplateResponse)(
    { contractVersion: CONTRACT_VERSION, template: toResource(template) },
    { status, headers }
  ).pipe(Effect.orDie)

const templateNotFound = notFound("custom template")

export const TemplatesHandlers = HttpApiBuilder.group(PressroomApi, "templates", (handlers) =>
  Effect.gen(function*() {
    const rateLimiter = yield* RateLimiter
    const idempotency = yield* Idempotency
    const templates = yield* CustomTemplates

    const admit = (rateClass: RateClass, scope: ApiScope) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        Effect.zipRight(rateLimiter.take(principal.accountId, rateClass), requireScope(scope)))

    return handlers
      .handle("create", ({ headers, payload }) =>
        Effect.flatMap(admit("write", "templates.manage"), ({ accountId }) =>
          idempotency.run(
            { operation: "templates.create", key: headers["idempotency-key"], pathParams: {}, body: payload },
            () =>
              toDefinition(payload).pipe(
                Effect.flatMap((definition) => templates.create(accountId, definition)),
                Effect.flatMap((template) => templateResponse(template, 201, { location: `/api/v2/templates/${template.id}` }))
              )
          )))
      .handle("list", () =>
        Effect.flatMap(admit("read", "documents.read"), ({ accountId }) =>
          Effect.map(templates.list(accountId), (list) => ({ contractVersion: CONTRACT_VERSION, templates: list.map(toResource) }))))
      .handle("get", ({ path }) =>
        Effect.flatMap(admit("read", "documents.read"), ({ accountId }) =>
          templates.findForOwner(accountId, path.templateId).pipe(
            Effect.flatMap(Option.match({
              onNone: () => Effect.fail(templateNotFound),
              onSome: (template) => Effect.succeed({ contractVersion: CONTRACT_VERSION, template: toResource(template) })
            }))
          )))
      .handle("delete", ({ headers, path }) =>
        Effect.flatMap(admit("write", "templates.manage"), ({ accountId }) =>
          idempotency.run(
            { operation: "templates.delete", key: headers["idempotency-key"], pathParams: { templateId: path.templateId }, body: null },
            () =>
              templates.delete(accountId, path.templateId).pipe(
                Effect.flatMap(Option.match({
                  onNone: () => Effect.fail(templateNotFound),
                  onSome: (template) => templateResponse(template, 200)
                }))
              )
          )))
  }))
