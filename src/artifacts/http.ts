/**
 * The artifact endpoints. A download with the key and a link's mint are owner-scoped (another
 * owner's artifact is a 404); a download by link needs no key, only a valid signature, and works
 * through any process that shares the server key. An artifact that expired or was deleted is 410
 * on every path; bytes that cannot be read right now are 503 (retry).
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { Admission } from "../admission/admission.ts"
import { attachment } from "../shared/content-disposition.ts"
import { PressroomApi } from "../http/api.ts"
import { CONTRACT_VERSION } from "../shared/error-responses.ts"
import { ArtifactExpired, Forbidden } from "../shared/errors.ts"
import { ArtifactLinkResponse } from "./api.ts"
import { type Artifact, artifactRetention } from "./artifact.ts"
import { ArtifactLinks } from "./links.ts"
import { ownedArtifact, pdfOf, servable } from "./owned.ts"
import { ArtifactRepository } from "./repository.ts"

const etagOf = (artifact: Artifact) => `"${artifact.sha256}"`

const pdfHeaders = (artifact: Artifact) => ({
  "content-disposition": attachment(artifact.filename),
  etag: etagOf(artifact),
  "cache-control": "private, no-cache"
})

export const ArtifactsHandlers = HttpApiBuilder.group(PressroomApi, "artifacts", (handlers) =>
  Effect.gen(function* () {
    const admission = yield* Admission
    const links = yield* ArtifactLinks

    return handlers
      .handle("download", ({ headers, path }) =>
        Effect.gen(function* () {
          const principal = yield* admission.admit("documents.read", "read")
          const artifact = yield* ownedArtifact(principal, path.artifactId)
          if (headers["if-none-match"]?.split(",").some((tag) => tag.trim() === etagOf(artifact) || tag.trim() === "*")) {
            return HttpServerResponse.empty({ status: 304, headers: { etag: etagOf(artifact) } })
          }
          return HttpServerResponse.uint8Array(yield* pdfOf(artifact), { contentType: "application/pdf", headers: pdfHeaders(artifact) })
        })
      )
      .handle("createLink", ({ path }) =>
        Effect.gen(function* () {
          const principal = yield* admission.admit("documents.read", "read")
          const artifact = yield* ownedArtifact(principal, path.artifactId)
          const link = yield* links.mint(artifact.id, artifact.expiresAt)
          const href = yield* links.href(link.path)
          return yield* HttpServerResponse.schemaJson(ArtifactLinkResponse)(
            {
              artifactId: artifact.id,
              contractVersion: CONTRACT_VERSION,
              expiresAt: link.expiresAt,
              href,
              retention: artifactRetention(artifact)
            },
            { status: 201, headers: { "cache-control": "no-store" } }
          ).pipe(Effect.orDie)
        })
      )
  })
)

export const ArtifactLinksHandlers = HttpApiBuilder.group(PressroomApi, "artifactLinks", (handlers) =>
  Effect.gen(function* () {
    const artifacts = yield* ArtifactRepository
    const links = yield* ArtifactLinks

    /** The artifact a link names, once its signature and expiry hold (403 otherwise, the same for every reason). */
    const linked = (token: string) =>
      Effect.gen(function* () {
        const artifactId = yield* links
          .verify(token)
          .pipe(Effect.mapError(() => new Forbidden({ scopes: [], reason: "the download link is malformed, altered or expired" })))
        const artifact = yield* artifacts.find(artifactId)
        if (Option.isNone(artifact) || !servable(artifact.value)) return yield* Effect.fail(new ArtifactExpired())
        return artifact.value
      })

    return handlers
      .handle("download", ({ path }) =>
        Effect.gen(function* () {
          const artifact = yield* linked(path.token)
          return HttpServerResponse.uint8Array(yield* pdfOf(artifact), { contentType: "application/pdf", headers: pdfHeaders(artifact) })
        })
      )
      .handle("head", ({ path }) =>
        Effect.map(linked(path.token), (artifact) =>
          HttpServerResponse.empty({
            status: 200,
            headers: { ...pdfHeaders(artifact), "content-type": "application/pdf", "content-length": String(artifact.bytes) }
          })
        )
      )
  })
)
