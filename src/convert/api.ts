/** The legacy one-call conversion (specification section 4, v1; contract section 8). */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AuthenticationV1 } from "../accounts/security.ts"
import { V1_TEMPLATE_IDS } from "../render/catalog.ts"
import { LOCALES } from "../render/locales.ts"
import { RenderOptions } from "../render/common/options.ts"
import { countCharacters, MAX_MARKDOWN_CHARACTERS } from "../render/markdown-length.ts"
import { withErrors } from "../shared/error-responses.ts"
import { Forbidden, NotFound, QuotaExhausted, RateLimited, ServiceUnavailable } from "../shared/errors.ts"
import { looseFields, oneOf, strict } from "../shared/request-values.ts"
import { CommonMarkText } from "../shared/text.ts"

export const ConvertOptions = Schema.Struct(looseFields(RenderOptions.fields)).annotations({ identifier: "ConvertOptions", ...strict })

export const ConvertRequest = Schema.Struct({
  markdown: Schema.String.pipe(
    Schema.filter((s) => countCharacters(s) <= MAX_MARKDOWN_CHARACTERS, {
      message: () => `must be at most ${MAX_MARKDOWN_CHARACTERS} characters`,
      jsonSchema: { maxLength: MAX_MARKDOWN_CHARACTERS }
    }),
    // Then read as CommonMark reads it (a NUL or an unpaired surrogate becomes U+FFFD, one
    // character for one): the job stores, hashes and renders that text.
    Schema.compose(CommonMarkText)
  ),
  templateId: Schema.optional(oneOf(V1_TEMPLATE_IDS, "default clean")),
  filename: Schema.optional(Schema.String.annotations({ description: "name of the downloaded PDF; default document.pdf" })),
  locale: Schema.optional(oneOf(LOCALES, "default en")),
  customTemplateId: Schema.optional(Schema.UUID),
  options: Schema.optional(ConvertOptions)
}).annotations({ identifier: "ConvertRequest", ...strict })
export type ConvertRequest = typeof ConvertRequest.Type

export class V1Api extends HttpApiGroup.make("v1")
  .add(
    withErrors(
      HttpApiEndpoint.post("convert", "/api/v1/convert")
        .setPayload(ConvertRequest)
        .addSuccess(
          HttpApiSchema.Uint8Array({ contentType: "application/pdf" }).annotations({
            description: 'The PDF, with Content-Disposition: attachment; filename="…"'
          })
        ),
      "v1",
      [Forbidden, NotFound, QuotaExhausted, RateLimited, ServiceUnavailable],
      [400, 413, 415, 422]
    )
  )
  .middleware(AuthenticationV1)
  .annotate(OpenApi.Title, "v1")
  .annotate(OpenApi.Description, "Legacy single-call conversion: Markdown in, PDF out.") {}
