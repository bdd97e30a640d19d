/**
 * The content checks of a revision and of a render request (contract section 3: 422), after the
 * request schemas of api.ts have checked their shape (400).
 */
import { Effect } from "effect"
import { toRenderSpec } from "../jobs/render-spec.ts"
import { countCharacters, MAX_MARKDOWN_CHARACTERS } from "../render/markdown-length.ts"
import { InvalidRequest } from "../shared/errors.ts"
import { decodeContent } from "../shared/request-values.ts"
import { StoredText } from "../shared/text.ts"
import type { CreateRevisionRequest, RenderRequest } from "./api.ts"
import type { Revision } from "./document.ts"
import type { RevisionInput } from "./documents.ts"

/** A revision's content: markdown of 1 to 200,000 characters, a known template and locale, valid options. */
export const checkRevision = (request: CreateRevisionRequest, prefix = ""): Effect.Effect<RevisionInput, InvalidRequest> => {
  const characters = countCharacters(request.markdown)
  if (characters < 1 || characters > MAX_MARKDOWN_CHARACTERS) {
    return Effect.fail(
      InvalidRequest.unprocessable(
        `${prefix}markdown: must be 1 to ${MAX_MARKDOWN_CHARACTERS} characters (got ${characters})`,
        `${prefix}markdown`
      )
    )
  }
  const { spec } = request
  return toRenderSpec({
    markdown: request.markdown,
    templateId: spec.templateId,
    locale: spec.locale,
    options: spec.options ?? {},
    filename: "document.pdf"
  }).pipe(
    Effect.mapError((error) =>
      error.field === undefined ? error : InvalidRequest.unprocessable(`${prefix}spec.${error.message}`, `${prefix}spec.${error.field}`)
    ),
    Effect.as({ markdown: request.markdown, parentRevisionId: request.parentRevisionId, spec: request.spec as RevisionInput["spec"] })
  )
}

/** A title that the database can store (no NUL, no unpaired surrogate). */
export const checkTitle = (title: string | null) => (title === null ? Effect.succeed(null) : decodeContent(StoredText, title, "title"))

/** What a preview or publication of `revision` renders, with the request's output (filename, format) checked. */
export const renderSpecOf = (revision: Revision, request: RenderRequest) => {
  if (request.output.format !== "pdf") {
    return Effect.fail(InvalidRequest.unprocessable("output.format: only pdf is produced", "output.format"))
  }
  if (revision.markdown === null) return Effect.die(new Error(`revision ${revision.id} of an active document has no source`))
  return toRenderSpec({
    markdown: revision.markdown,
    templateId: revision.spec.templateId,
    locale: revision.spec.locale,
    options: revision.spec.options ?? {},
    filename: request.output.filename
  }).pipe(
    Effect.mapError((error) =>
      error.field === "filename" ? InvalidRequest.unprocessable(`output.${error.message}`, "output.filename") : error
    )
  )
}
