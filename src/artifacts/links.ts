// TEMPORARY STUB (not committed): replaced by the h-keys helper's module.
import { Effect, Schema } from "effect"
export class LinkRefused extends Schema.TaggedError<LinkRefused>()("LinkRefused", {}) {}
export class ArtifactLinks extends Effect.Service<ArtifactLinks>()("pressroom/ArtifactLinks", {
  succeed: {
    mint: (artifactId: string, artifactExpiresAt: Date) => {
      const expiresAt = new Date(Math.min(Date.now() + 300_000, artifactExpiresAt.getTime()))
      return Effect.succeed({ href: `http://127.0.0.1/api/v2/artifact-links/${artifactId}`, expiresAt })
    },
    verify: (token: string): Effect.Effect<string, LinkRefused> =>
      token.length === 36 ? Effect.succeed(token) : Effect.fail(new LinkRefused())
  }
}) {}
