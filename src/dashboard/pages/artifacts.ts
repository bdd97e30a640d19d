/**
 * An artifact's PDF for the signed-in member (contract section 12): `preview` inline, for the
 * editor's frame, which only the dashboard itself may frame (`frame-ancestors 'self'`); `download`
 * as an attachment. Another account's artifact is not found (404), as in the API.
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { pdfOf, servableArtifact as ownedArtifact } from "../../artifacts/operations.ts"
import { contentDisposition, PDF_CACHE_CONTROL } from "../../shared/content-disposition.ts"
import { CurrentMember } from "../member-context.ts"
import { withRefusalPages } from "../page-errors.ts"
import { secured } from "../responses.ts"

const pdfResponse = (artifactId: string, disposition: "inline" | "attachment") =>
  withRefusalPages(
    Effect.gen(function* () {
      const { principal } = yield* CurrentMember
      const artifact = yield* ownedArtifact(principal, artifactId)
      const response = HttpServerResponse.uint8Array(yield* pdfOf(artifact), {
        contentType: "application/pdf",
        headers: { "content-disposition": contentDisposition(disposition, artifact.filename) }
      })
      // A PDF's Cache-Control, as every PDF the service sends (issue 30), over the pages' no-store.
      return HttpServerResponse.setHeader(
        secured(response, disposition === "inline" ? "'self'" : "'none'"),
        "cache-control",
        PDF_CACHE_CONTROL
      )
    })
  )

export const previewArtifact = (artifactId: string) => pdfResponse(artifactId, "inline")

export const downloadArtifact = (artifactId: string) => pdfResponse(artifactId, "attachment")

/** Where the pages link an artifact's PDF. */
export const previewPath = (artifactId: string) => `/app/artifacts/${artifactId}/preview`
export const downloadPath = (artifactId: string) => `/app/artifacts/${artifactId}/download`
