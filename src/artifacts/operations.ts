/**
 * The artifact operations as values, for the REST handlers (http.ts), the MCP tools (src/mcp/) and
 * the dashboard's pages alike: another owner's artifact is a 404, an expired or deleted one 410,
 * bytes unreadable right now 503.
 */
import { Effect, Option } from "effect"
import type { Principal } from "../accounts/principal.ts"
import { CONTRACT_VERSION } from "../shared/error-responses.ts"
import { ArtifactExpired, ArtifactUnavailable, NotFound } from "../shared/errors.ts"
import type { ArtifactLinkResponse } from "./api.ts"
import { type Artifact, artifactRetention } from "./artifact.ts"
import { ArtifactLinks } from "./links.ts"
import { ArtifactRepository } from "./repository.ts"
import { ArtifactStore } from "./store.ts"

/** Whether the artifact may still be served: available and not past its expiry (the sweeper may not have run yet). */
export const servable = (artifact: Artifact) => artifact.status === "available" && artifact.expiresAt.getTime() > Date.now()

/** The owner's artifact, still servable: another owner's is a 404, an expired or deleted one 410. */
export const servableArtifact = (principal: Pick<Principal, "accountId">, artifactId: string) =>
  Effect.gen(function* () {
    const found = yield* (yield* ArtifactRepository).find(artifactId)
    if (Option.isNone(found) || found.value.accountId !== principal.accountId)
      return yield* Effect.fail(new NotFound({ resource: "artifact" }))
    return servable(found.value) ? found.value : yield* Effect.fail(new ArtifactExpired())
  })

/** A signed download link of the owner's artifact; nothing is stored or charged. */
export const createArtifactLink = (principal: Principal, artifactId: string) =>
  Effect.gen(function* () {
    const links = yield* ArtifactLinks
    const artifact = yield* servableArtifact(principal, artifactId)
    const link = yield* links.mint(artifact.id, artifact.expiresAt)
    return {
      artifactId: artifact.id,
      contractVersion: CONTRACT_VERSION,
      expiresAt: link.expiresAt,
      href: yield* links.href(link.path),
      retention: artifactRetention(artifact)
    } satisfies typeof ArtifactLinkResponse.Type
  })

/** The artifact's PDF bytes. */
export const pdfOf = (artifact: Artifact) =>
  Effect.flatMap(ArtifactStore, (storage) => storage.get(artifact.storageKey)).pipe(Effect.mapError(() => new ArtifactUnavailable()))
