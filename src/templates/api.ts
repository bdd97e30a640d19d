/**
 * Custom templates (contract section 8): owner-scoped saved overrides on a built-in template.
 * Requests are strict (an unknown property is a 400). Content values (base template, colours,
 * accent, paper, font family) are plain strings here and checked by the handler, because the
 * contract answers them with 422 rather than 400; the document still lists what a client may send.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../accounts/security.ts"
import { IdempotencyKeyHeader } from "../idempotency/key.ts"
import { TEMPLATE_IDS } from "../render/catalog.ts"
import { RETIRED_FONT_FAMILIES } from "../render/common/font-families.ts"
import { RenderOptions } from "../render/common/options.ts"
import { RenderOverrides } from "../render/common/overrides.ts"
import { CONTRACT_VERSION, withErrors } from "../shared/error-responses.ts"
import { Forbidden, IdempotencyConflict, NotFound, RateLimited } from "../shared/errors.ts"
import { looseFields, oneOf, strict } from "../shared/request-values.ts"
import { Timestamp } from "../shared/timestamp.ts"
import { CustomTemplateOptions } from "./custom-template.ts"

const retired = Object.entries(RETIRED_FONT_FAMILIES)
  .map(([old, now]) => `${old} (retired) means ${now}`)
  .join(", ")

const overrides = looseFields(RenderOverrides.fields)

export const CustomTemplateOptionsRequest = Schema.Struct({
  ...looseFields(RenderOptions.fields),
  ...overrides,
  fontFamily: overrides.fontFamily!.annotations({ description: `a bundled family; ${retired}` })
}).annotations({ identifier: "CustomTemplateOptionsRequest", ...strict })

export const CreateCustomTemplateRequest = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(160)).annotations({ title: "name", description: "1 to 160 characters" }),
  baseTemplateId: oneOf(TEMPLATE_IDS).annotations({ description: "a template of the catalog" }),
  options: CustomTemplateOptionsRequest
}).annotations({ identifier: "CreateCustomTemplateRequest", ...strict })
export type CreateCustomTemplateRequest = typeof CreateCustomTemplateRequest.Type

export const CustomTemplateResource = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  baseTemplateId: Schema.String,
  options: CustomTemplateOptions.annotations({ identifier: "CustomTemplateOptions" }),
  createdAt: Timestamp,
  deletedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "CustomTemplate" })

const contractVersion = Schema.Literal(CONTRACT_VERSION)

export const CustomTemplateResponse = Schema.Struct({ contractVersion, template: CustomTemplateResource }).annotations({
  identifier: "CustomTemplateResponse"
})

export const CustomTemplateList = Schema.Struct({ contractVersion, templates: Schema.Array(CustomTemplateResource) }).annotations({
  identifier: "CustomTemplateList",
  description: "The owner's custom templates, newest first."
})

const TemplatePath = Schema.Struct({ templateId: Schema.UUID })

const replayNote = "A replay of the same Idempotency-Key and body answers the saved response with Idempotency-Replayed: true."

export class TemplatesApi extends HttpApiGroup.make("templates")
  .add(
    withErrors(
      HttpApiEndpoint.post("create", "/api/v2/templates")
        .setHeaders(IdempotencyKeyHeader)
        .setPayload(CreateCustomTemplateRequest)
        .addSuccess(CustomTemplateResponse.annotations({ description: `Created; Location names the template. ${replayNote}` }), {
          status: 201
        })
        .annotate(OpenApi.Summary, "Create a custom template (scope templates.manage)"),
      "v2",
      [Forbidden, IdempotencyConflict, RateLimited],
      [400, 413, 415, 422]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.get("list", "/api/v2/templates")
        .addSuccess(CustomTemplateList)
        .annotate(OpenApi.Summary, "List custom templates (scope documents.read)"),
      "v2",
      [Forbidden, RateLimited]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.get("get", "/api/v2/templates/:templateId")
        .setPath(TemplatePath)
        .addSuccess(CustomTemplateResponse)
        .annotate(OpenApi.Summary, "Get a custom template (scope documents.read)"),
      "v2",
      [Forbidden, NotFound, RateLimited],
      [400]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.del("delete", "/api/v2/templates/:templateId")
        .setPath(TemplatePath)
        .setHeaders(IdempotencyKeyHeader)
        .addSuccess(CustomTemplateResponse.annotations({ description: `Deleted; deletedAt is set. ${replayNote}` }))
        .annotate(OpenApi.Summary, "Delete a custom template (scope templates.manage)"),
      "v2",
      [Forbidden, NotFound, IdempotencyConflict, RateLimited],
      [400]
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Custom templates") {}
