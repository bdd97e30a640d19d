/**
 * Provenance of a render (specification 2.10), computed as contract section 11 says.
 */
import { Schema } from "effect"
import { jcsSha256, sha256Hex } from "../shared/hash.ts"
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

export type ProvenanceInput = Omit<Provenance, "manifestSha256" | "assetSetSha256"> & {
  readonly assetSha256s: ReadonlyArray<string>
}

/** `assetSetSha256`: the sorted embedded image hashes, or null when the document embeds none. */
export const assetSetSha256 = (assetSha256s: ReadonlyArray<string>): string | null =>
  assetSha256s.length === 0 ? null : sha256Hex([...assetSha256s].sort().join("\n"))

export const makeProvenance = ({ assetSha256s, ...input }: ProvenanceInput): Provenance => {
  const assetSet = assetSetSha256(assetSha256s)
  // manifestSha256 binds every hash above it into one value an auditor can compare.
  const manifestSha256 = jcsSha256({
    assetSetSha256: assetSet,
    catalogSha256: input.catalogSha256,
    fontSetSha256: input.fontSetSha256,
    optionsSha256: input.optionsSha256,
    renderOptionsSha256: input.renderOptionsSha256,
    rendererReleaseChecksum: input.rendererReleaseChecksum,
    sourceSha256: input.sourceSha256,
    templateDefinitionSha256: input.templateDefinitionSha256,
    templateReleaseSha256: input.templateReleaseSha256
  })
  return { ...input, assetSetSha256: assetSet, manifestSha256 }
}
