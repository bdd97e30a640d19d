/**
 * Artifacts (specification 2.11, 4 Table A; contract section 5): download with the API key, mint a
 * short-lived link, and download through the link without any key.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../accounts/security.ts"
import { CONTRACT_VERSION, withErrors } from "../shared/error-responses.ts"
import { ArtifactExpired, ArtifactUnavailable, Forbidden, NotFound, RateLimited, ServiceUnavailable } from "../shared/errors.ts"
import { Retention } from "../shared/retention.ts"

const ArtifactPath = Schema.Struct({ artifactId: Schema.UUID })

const Pdf = HttpApiSchema.Uint8Array({ contentType: "application/pdf" }).annotations({
  description: 'The PDF, with Content-Disposition: attachment; filename="…" and ETag (its SHA-256, quoted)'
})

export const ArtifactLinkResponse = Schema.Struct({
  artifactId: Schema.UUID,
  contractVersion: Schema.Literal(CONTRACT_VERSION),
  expiresAt: Schema.Date,
  href: Schema.String.annotations({ jsonSchema: { type: "string", format: "uri" } }),
  retention: Retention
}).annotations({ identifier: "ArtifactLinkResponse" })

export const IfNoneMatch = Schema.Struct({ "if-none-match": Schema.optional(Schema.String) })

export class ArtifactsApi extends HttpApiGroup.make("artifacts")
  .add(
    withErrors(
      HttpApiEndpoint.get("download", "/api/v2/artifacts/:artifactId/download")
        .setPath(ArtifactPath)
        .setHeaders(IfNoneMatch)
        .addSuccess(Pdf)
        .addSuccess(HttpApiSchema.NoContent.annotations({ description: "Not modified: If-None-Match names this ETag" }), { status: 304 })
        .annotate(OpenApi.Summary, "Download an artifact with the API key (scope documents.read)"),
      "v2",
      [Forbidden, NotFound, ArtifactExpired, ArtifactUnavailable, RateLimited],
      [400]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("createLink", "/api/v2/artifacts/:artifactId/links")
        .setPath(ArtifactPath)
        .addSuccess(
          ArtifactLinkResponse.annotations({
            description:
              "A link to download the PDF without the API key, valid until expiresAt (at most PRESSROOM_LINK_TTL_SECONDS, never past the artifact's own expiry). Cache-Control: no-store."
          }),
          { status: 201 }
        )
        .annotate(OpenApi.Summary, "Create an artifact download link (scope documents.read); nothing is stored or charged"),
      "v2",
      [Forbidden, NotFound, ArtifactExpired, RateLimited, ServiceUnavailable],
      [400]
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Artifacts") {}

const LinkPath = Schema.Struct({ token: Schema.String })

const linkErrors = [Forbidden, ArtifactExpired, ArtifactUnavailable] as const

/** The downloads by link: no API key; the link's signature is the credential. */
export class ArtifactLinksApi extends HttpApiGroup.make("artifactLinks")
  .add(
    withErrors(
      HttpApiEndpoint.get("download", "/api/v2/artifact-links/:token")
        .setPath(LinkPath)
        .addSuccess(Pdf)
        .annotate(OpenApi.Summary, "Download an artifact by link (no API key); 403 for a tampered, malformed or expired link"),
      "v2",
      linkErrors
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.head("head", "/api/v2/artifact-links/:token")
        .setPath(LinkPath)
        .addSuccess(HttpApiSchema.NoContent.annotations({ description: "The headers of the download, without its body" }))
        .annotate(OpenApi.Summary, "The headers of a download by link"),
      "v2",
      linkErrors
    )
  )
  .annotate(OpenApi.Title, "Artifact links") {}
