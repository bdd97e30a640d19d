/**
 * The artifact endpoints. A download with the key and a link's mint are owner-scoped (another
 * owner's artifact is a 404); a download by link needs no key, only a valid signature, and works
 * through any process that shares the server key. An artifact that expired or was deleted is 410
 * on every path; bytes that cannot be read right now are 503 (retry).
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { Admission } from "../admission/admission.ts"
import { attachment, PDF_CACHE_CONTROL } from "../shared/content-disposition.ts"
import { PressroomApi } from "../http/api.ts"
import { ArtifactExpired, ArtifactUnavailable, Forbidden } from "../shared/errors.ts"
import { ArtifactLinkResponse } from "./api.ts"
import { createArtifactLink, servable, servableArtifact } from "./operations.ts"
import type { Artifact } from "./artifact.ts"
import { ArtifactLinks } from "./links.ts"
import { ArtifactRepository } from "./repository.ts"
import { ArtifactStore } from "./store.ts"

const etagOf = (artifact: Artifact) => `"${artifact.sha256}"`

/** A repeat download still gets 304 by its ETag. */
const pdfHeaders = (artifact: Artifact) => ({
  "content-disposition": attachment(artifact.filename),
  etag: etagOf(artifact),
  "cache-control": PDF_CACHE_CONTROL
})

/** A link is a credential: a page the PDF opens must not learn it from the Referer. */
const linkHeaders = (artifact: Artifact) => ({ ...pdfHeaders(artifact), "referrer-policy": "no-referrer" })

export const ArtifactsHandlers = HttpApiBuilder.group(PressroomApi, "artifacts", (handlers) =>
  Effect.gen(function* () {
    const admission = yield* Admission
    const storage = yield* ArtifactStore

    const context = yield* Effect.context<ArtifactRepository | ArtifactLinks>()

    return handlers
      .handle("download", ({ headers, path }) =>
        Effect.gen(function* () {
          const principal = yield* admission.admit("documents.read", "read")
          const artifact = yield* servableArtifact(principal, path.artifactId).pipe(Effect.provide(context))
          if (headers["if-none-match"]?.split(",").some((tag) => tag.trim() === etagOf(artifact) || tag.trim() === "*")) {
            return HttpServerResponse.empty({ status: 304, headers: { etag: etagOf(artifact) } })
          }
          const pdf = yield* storage.get(artifact.storageKey).pipe(Effect.mapError(() => new ArtifactUnavailable()))
          return HttpServerResponse.uint8Array(pdf, { contentType: "application/pdf", headers: pdfHeaders(artifact) })
        })
      )
      .handle("createLink", ({ path }) =>
        Effect.gen(function* () {
          const principal = yield* admission.admit("documents.read", "read")
          const link = yield* createArtifactLink(principal, path.artifactId).pipe(Effect.provide(context))
          return yield* HttpServerResponse.schemaJson(ArtifactLinkResponse)(link, {
            status: 201,
            headers: { "cache-control": "no-store" }
          }).pipe(Effect.orDie)
        })
      )
  })
)

export const ArtifactLinksHandlers = HttpApiBuilder.group(PressroomApi, "artifactLinks", (handlers) =>
  Effect.gen(function* () {
    const artifacts = yield* ArtifactRepository
    const storage = yield* ArtifactStore
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
          const pdf = yield* storage.get(artifact.storageKey).pipe(Effect.mapError(() => new ArtifactUnavailable()))
          return HttpServerResponse.uint8Array(pdf, { contentType: "application/pdf", headers: linkHeaders(artifact) })
        })
      )
      .handle("head", ({ path }) =>
        Effect.map(linked(path.token), (artifact) =>
          HttpServerResponse.empty({
            status: 200,
            headers: { ...linkHeaders(artifact), "content-type": "application/pdf", "content-length": String(artifact.bytes) }
          })
        )
      )
  })
)
