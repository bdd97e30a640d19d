/**
 * A custom template (contract section 8): an owner's saved set of overrides on a built-in
 * template: the render options a conversion may also send, plus the paper and the font family.
 */
import { Effect, Schema } from "effect"
import { findTemplate } from "../render/catalog.ts"
import { RenderOptions } from "../render/common/options.ts"
import { RenderOverrides } from "../render/common/overrides.ts"
import { InvalidRequest } from "../shared/errors.ts"
import { decodeContent } from "../shared/request-values.ts"
import { excerpt, StoredText } from "../shared/text.ts"

export const CustomTemplateOptions = Schema.Struct({ ...RenderOptions.fields, ...RenderOverrides.fields })
export type CustomTemplateOptions = typeof CustomTemplateOptions.Type

export interface CustomTemplateDefinition {
  readonly name: string
  readonly baseTemplateId: string
  readonly options: CustomTemplateOptions
}

export const CustomTemplate = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  baseTemplateId: Schema.String,
  options: CustomTemplateOptions,
  createdAt: Schema.DateFromSelf,
  /** Set when the owner deleted it; a deleted template is found by nobody. */
  deletedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type CustomTemplate = typeof CustomTemplate.Type

/**
 * The definition a well-formed request asks for, or 422 when its content cannot be accepted: an
 * unknown base template, a colour that is not `#rrggbb`, an unknown accent, paper or font family, a
 * name with a NUL or an unpaired surrogate. (The request's shape, and so every 400, is the HTTP
 * schema's.)
 */
export const toDefinition = (request: {
  readonly name: string
  readonly baseTemplateId: string
  readonly options: unknown
}): Effect.Effect<CustomTemplateDefinition, InvalidRequest> => {
  if (!findTemplate(request.baseTemplateId)) {
    return Effect.fail(
      InvalidRequest.unprocessable(`baseTemplateId: unknown template '${excerpt(request.baseTemplateId, 100)}'`, "baseTemplateId")
    )
  }
  return Effect.all({
    name: decodeContent(StoredText, request.name, "name"),
    baseTemplateId: Effect.succeed(request.baseTemplateId),
    options: decodeContent(CustomTemplateOptions, request.options, "options")
  })
}
