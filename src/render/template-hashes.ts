/**
 * Template hashes of provenance (contract section 11): the definition is the template's own file;
 * the release is every bundle file it reaches through imports and file reads (the shared library,
 * locale data), so a change anywhere a template depends on changes its release hash.
 */
import { sha256Hex } from "../shared/hash.ts"
import { templatePath } from "./catalog.ts"
import type { BundleFile } from "./engine/bundle.ts"

export interface TemplateHashes {
  readonly templateDefinitionSha256: string
  readonly templateReleaseSha256: string
}

const referencedPaths = (text: string): Array<string> => [...text.matchAll(/"(\/[A-Za-z0-9._/-]+)"/g)].map((m) => m[1]!)

export const templateHashes = (bundle: ReadonlyArray<BundleFile>, templateId: string): TemplateHashes => {
  const files = new Map(bundle.map((file) => [file.path, file.text]))
  const root = templatePath(templateId)
  const definition = files.get(root)
  if (definition === undefined) throw new Error(`template file ${root} is not in the bundle`)
  const reached = new Set<string>([root])
  const pending = [root]
  while (pending.length > 0) {
    for (const path of referencedPaths(files.get(pending.pop()!) ?? "")) {
      if (files.has(path) && !reached.has(path)) {
        reached.add(path)
        pending.push(path)
      }
    }
  }
  const release = [...reached]
    .sort()
    .map((path) => `${path} ${sha256Hex(files.get(path)!)}`)
    .join("\n")
  return { templateDefinitionSha256: sha256Hex(definition), templateReleaseSha256: sha256Hex(release) }
}
