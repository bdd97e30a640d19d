/**
 * From a request's template, locale, options and filename to the `RenderSpec` a job stores:
 * every content check whose failure is a 422 (contract section 3) happens here, at admission,
 * so a job never starts with a request the renderer would refuse.
 */
import { Effect } from "effect"
import { findTemplate } from "../render/catalog.ts"
import { isLocale } from "../render/locales.ts"
import { RenderOptions } from "../render/common/options.ts"
import { InvalidRequest } from "../shared/errors.ts"
import { decodeContent } from "../shared/request-values.ts"
import { excerpt } from "../shared/text.ts"
import { UsableFilename } from "./filename.ts"
import type { RenderSpec } from "./job.ts"

export interface SpecRequest {
  readonly markdown: string
  readonly templateId: string
  /** Templates the channel offers (v1 offers seven). */
  readonly allowedTemplates?: ReadonlyArray<string>
  readonly locale: string
  readonly options: unknown
  readonly overrides?: RenderSpec["overrides"]
  readonly filename: string
}

const unprocessable = (field: string, problem: string) => Effect.fail(InvalidRequest.unprocessable(`${field}: ${problem}`, field))

/**
 * A template the channel does not offer, named with those it does: a catalog template outside
 * them (v1's seven) is one of v2's, which a client would otherwise take for a typo or a bug.
 */
const notOffered = (templateId: string, offered: ReadonlyArray<string>) => {
  const named = `'${excerpt(templateId, 100)}'`
  const which = findTemplate(templateId) ? `${named} is a v2 template` : `unknown template ${named}`
  return `${which}; v1 offers ${offered.join(", ")} (every other template is v2's: /api/v2/documents)`
}

export const toRenderSpec = (request: SpecRequest): Effect.Effect<RenderSpec, InvalidRequest> => {
  const { templateId, locale, filename } = request
  if (request.allowedTemplates && !request.allowedTemplates.includes(templateId)) {
    return unprocessable("templateId", notOffered(templateId, request.allowedTemplates))
  }
  if (!findTemplate(templateId)) return unprocessable("templateId", `unknown template '${excerpt(templateId, 100)}'`)
  if (!isLocale(locale)) return unprocessable("locale", `unknown locale '${excerpt(locale, 40)}'`)
  if (request.markdown.length === 0) return unprocessable("markdown", "must not be empty")
  const content = Effect.zipRight(
    decodeContent(UsableFilename, filename, "filename"),
    decodeContent(RenderOptions, request.options, "options")
  )
  return Effect.as(content, {
    markdown: request.markdown,
    templateId,
    locale,
    options: request.options as Record<string, unknown>,
    ...(request.overrides && Object.keys(request.overrides).length > 0 ? { overrides: request.overrides } : {}),
    filename
  })
}
