/** The provenance of a render, computed as contract section 11 says (its fields: provenance.ts). */
import { jcsSha256, sha256Hex } from "../shared/hash.ts"
import type { Provenance } from "./provenance.ts"

export type ProvenanceInput = Omit<Provenance, "manifestSha256" | "assetSetSha256"> & {
  readonly assetSha256s: ReadonlyArray<string>
  /** The Typst version the engine reports: part of the manifest, not of the published provenance. */
  readonly typstVersion: string
}

/** `assetSetSha256`: the sorted embedded image hashes, or null when the document embeds none. */
export const assetSetSha256 = (assetSha256s: ReadonlyArray<string>): string | null =>
  assetSha256s.length === 0 ? null : sha256Hex([...assetSha256s].sort().join("\n"))

/**
 * What determines the PDF bytes, and nothing else (contract section 11): not the request, the
 * channel, the options as sent (only their effect, renderOptionsSha256) or which engine binary ran,
 * since the engines are byte-identical by contract. Two renders with equal manifests have equal bytes.
 */
export interface ManifestInput {
  readonly locale: string
  readonly templateId: string
  readonly catalogVersion: string
  readonly rendererVersion: string
  readonly typstVersion: string
  readonly sourceSha256: string
  readonly renderOptionsSha256: string | null
  readonly templateDefinitionSha256: string | null
  readonly templateReleaseSha256: string | null
  readonly fontSetSha256: string | null
  readonly assetSetSha256: string | null
  readonly catalogSha256: string | null
}

/** Exactly the fields of `ManifestInput`, whatever else `input` carries. */
const manifestOf = (input: ManifestInput): ManifestInput => ({
  locale: input.locale,
  templateId: input.templateId,
  catalogVersion: input.catalogVersion,
  rendererVersion: input.rendererVersion,
  typstVersion: input.typstVersion,
  sourceSha256: input.sourceSha256,
  renderOptionsSha256: input.renderOptionsSha256,
  templateDefinitionSha256: input.templateDefinitionSha256,
  templateReleaseSha256: input.templateReleaseSha256,
  fontSetSha256: input.fontSetSha256,
  assetSetSha256: input.assetSetSha256,
  catalogSha256: input.catalogSha256
})

/** `manifestSha256`: the SHA-256 of the JCS of exactly the fields of `ManifestInput`. */
export const manifestSha256 = (input: ManifestInput): string => jcsSha256(manifestOf(input))

/** Every provenance input known before typesetting: all but the embedded images, which parsing finds. */
export type PlannedProvenance = Omit<ProvenanceInput, "assetSha256s">

/**
 * The key a render is reused by (src/jobs/reuse.ts): the SHA-256 of the JCS of the manifest's
 * fields without `assetSetSha256`. Images embed only from data: URIs in the source (nothing is
 * fetched), so the asset set is a function of `sourceSha256`, which the key covers: equal keys
 * mean equal manifests, which the reuse still checks against the artifact's recorded one.
 */
export const reuseKeyOf = (planned: PlannedProvenance): string => {
  const { assetSetSha256: _, ...known } = manifestOf({ ...planned, assetSetSha256: null })
  return jcsSha256(known)
}

/** The provenance of a render once its asset set is known. */
export const completeProvenance = ({ typstVersion, ...input }: PlannedProvenance, assetSet: string | null): Provenance => ({
  ...input,
  assetSetSha256: assetSet,
  manifestSha256: manifestSha256({ ...input, typstVersion, assetSetSha256: assetSet })
})

export const makeProvenance = ({ assetSha256s, ...input }: ProvenanceInput): Provenance =>
  completeProvenance(input, assetSetSha256(assetSha256s))
