/**
 * The runnable blocks of a Markdown document: each fenced block right after a marker comment
 * `<!-- test: <name> -->` (blank lines between them allowed), in document order. Documentation
 * marks the blocks a reader is meant to run so that a test runs exactly those and they cannot rot.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { packageRoot } from "../../src/render/fonts/manifest.ts"

export interface DocBlock {
  /** The fence's info string (`sh`, `js` …). */
  readonly lang: string
  readonly code: string
}

const marked = /<!-- test: ([\w-]+) -->\s*\n```([\w-]*)\n([\s\S]*?)\n```/g

/** The blocks of `file` (relative to the package root) marked `name`; throws when there are none. */
export const markedBlocks = (file: string, name: string): ReadonlyArray<DocBlock> => {
  const text = readFileSync(join(packageRoot, file), "utf8")
  const blocks = [...text.matchAll(marked)].filter((match) => match[1] === name).map((match) => ({ lang: match[2]!, code: match[3]! }))
  if (blocks.length === 0) throw new Error(`${file} has no block marked "<!-- test: ${name} -->"`)
  return blocks
}
