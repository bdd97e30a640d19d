/**
 * The custom template endpoints, each admitted by `Admission` (scope, rate limit, and for creation
 * and deletion the Idempotency-Key), then a call of `CustomTemplates`.
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { Admission } from "../admission/admission.ts"
import { PressroomApi } from "../http/api.ts"
import { CONTRACT_VERSION } from "../shared/error-responses.ts"
import { NotFound } from "../shared/errors.ts"
import { CustomTemplateResponse } from "./api.ts"
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

const templateNotFound = new NotFound({ resource: "custom template" })

export const TemplatesHandlers = HttpApiBuilder.group(PressroomApi, "templates", (handlers) =>
  Effect.gen(function* () {
    const admission = yield* Admission
    const templates = yield* CustomTemplates

    return handlers
      .handle("create", ({ headers, payload }) =>
        admission.mutate(
          "templates.manage",
          "write",
          { operation: "templates.create", key: headers["idempotency-key"], pathParams: {}, body: payload },
          (principal) =>
            toDefinition(payload).pipe(
              Effect.flatMap((definition) => templates.create(principal, definition)),
              Effect.flatMap((template) => templateResponse(template, 201, { location: `/api/v2/templates/${template.id}` }))
            )
        )
      )
      .handle("list", () =>
        Effect.flatMap(admission.admit("documents.read", "read"), ({ accountId }) =>
          Effect.map(templates.list(accountId), (list) => ({ contractVersion: CONTRACT_VERSION, templates: list.map(toResource) }))
        )
      )
      .handle("get", ({ path }) =>
        Effect.flatMap(admission.admit("documents.read", "read"), ({ accountId }) =>
          templates.findForOwner(accountId, path.templateId).pipe(
            Effect.flatMap(
              Option.match({
                onNone: () => Effect.fail(templateNotFound),
                onSome: (template) => Effect.succeed({ contractVersion: CONTRACT_VERSION, template: toResource(template) })
              })
            )
          )
        )
      )
      .handle("delete", ({ headers, path }) =>
        admission.mutate(
          "templates.manage",
          "write",
          { operation: "templates.delete", key: headers["idempotency-key"], pathParams: { templateId: path.templateId }, body: null },
          (principal) =>
            templates.delete(principal, path.templateId).pipe(
              Effect.flatMap(
                Option.match({
                  onNone: () => Effect.fail(templateNotFound),
                  onSome: (template) => templateResponse(template, 200)
                })
              )
            )
        )
      )
  })
)
