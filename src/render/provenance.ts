/**
 * Provenance of a render (specification 2.10), as a job and an artifact carry it; provenance-hashes.ts
 * computes it as contract section 11 says.
 */
import { Schema } from "effect"
import { LOCALES } from "./locales.ts"

export const CHANNELS = ["web", "rest_v1", "rest_v2", "mcp_v1", "mcp_v2", "cli", "github_action", "internal"] as const
/** Where a render was asked for (specification 2.10). */
export const Channel = Schema.Literal(...CHANNELS)
export type Channel = typeof Channel.Type

export const Sha256 = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/)).annotations({ description: "SHA-256, lowercase hex" })

const hashOrNull = Schema.NullOr(Sha256)

export const Provenance = Schema.Struct({
  assetSetSha256: hashOrNull,
  catalogSha256: hashOrNull,
  fontSetSha256: hashOrNull,
  manifestSha256: hashOrNull,
  renderOptionsSha256: hashOrNull,
  rendererReleaseChecksum: hashOrNull,
  templateDefinitionSha256: hashOrNull,
  templateReleaseSha256: hashOrNull,
  optionsSha256: Sha256,
  requestSha256: Sha256,
  sourceSha256: Sha256,
  catalogVersion: Schema.String,
  rendererVersion: Schema.String,
  engineVersion: Schema.NullOr(Schema.String),
  channel: Channel,
  locale: Schema.Literal(...LOCALES),
  templateId: Schema.String,
  templateReleaseId: Schema.NullOr(Schema.UUID),
  synthetic: Schema.Boolean
}).annotations({ identifier: "Provenance" })
export type Provenance = typeof Provenance.Type
