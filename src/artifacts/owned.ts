/**
 * An owner's artifact and its bytes, as every session or key route that serves one reads them:
 * another owner's artifact is a 404, an expired or deleted one 410, bytes unreadable right now 503.
 */
import { Effect, Option } from "effect"
import type { Principal } from "../accounts/principal.ts"
import { ArtifactExpired, ArtifactUnavailable, NotFound } from "../shared/errors.ts"
import type { Artifact } from "./artifact.ts"
import { ArtifactRepository } from "./repository.ts"
import { ArtifactStore } from "./store.ts"

/** Whether the artifact may still be served: available and not past its expiry (the sweeper may not have run yet). */
export const servable = (artifact: Artifact) => artifact.status === "available" && artifact.expiresAt.getTime() > Date.now()

/** The artifact `artifactId` of the principal's account, still servable. */
export const ownedArtifact = (principal: Pick<Principal, "accountId">, artifactId: string) =>
  Effect.flatMap(ArtifactRepository, (artifacts) => artifacts.find(artifactId)).pipe(
    Effect.flatMap((found) =>
      Option.isSome(found) && found.value.accountId === principal.accountId
        ? Effect.succeed(found.value)
        : Effect.fail(new NotFound({ resource: "artifact" }))
    ),
    Effect.filterOrFail(servable, () => new ArtifactExpired())
  )

/** The artifact's PDF bytes. */
export const pdfOf = (artifact: Artifact) =>
  Effect.flatMap(ArtifactStore, (storage) => storage.get(artifact.storageKey)).pipe(Effect.mapError(() => new ArtifactUnavailable()))
