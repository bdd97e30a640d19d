/**
 * Provenance of a render (specification 2.10), computed as contract section 11 says.
 */
import { jcsSha256, sha256Hex } from "../shared/hash.ts"
import type { Locale } from "./locales.ts"

export const CHANNELS = ["web", "rest_v1", "rest_v2", "mcp_v1", "mcp_v2", "cli", "github_action", "internal"] as const
export type Channel = (typeof CHANNELS)[number]

export interface Provenance {
  readonly assetSetSha256: string | null
  readonly catalogSha256: string | null
  readonly fontSetSha256: string | null
  readonly manifestSha256: string | null
  readonly renderOptionsSha256: string | null
  readonly rendererReleaseChecksum: string | null
  readonly templateDefinitionSha256: string | null
  readonly templateReleaseSha256: string | null
  readonly optionsSha256: string
  readonly requestSha256: string
  readonly sourceSha256: string
  readonly catalogVersion: string
  readonly rendererVersion: string
  readonly engineVersion: string | null
  readonly channel: Channel
  readonly locale: Locale
  readonly templateId: string
  readonly templateReleaseId: string | null
  readonly synthetic: boolean
}

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
