/**
 * Markdown (CommonMark + GFM) with optional YAML front matter and math (math-syntax.ts) into mdast.
 */
import type { Root } from "mdast"
import { fromMarkdown } from "mdast-util-from-markdown"
import { frontmatterFromMarkdown } from "mdast-util-frontmatter"
import { gfmFromMarkdown } from "mdast-util-gfm"
import { frontmatter } from "micromark-extension-frontmatter"
import { gfm } from "micromark-extension-gfm"
import { parse as parseYaml } from "yaml"
import type { RenderWarning } from "../common/warnings.ts"
import { countBlocks, MAX_BLOCKS, TooManyBlocks } from "./block-count.ts"
import { cutContainerMarkers } from "./container-markers.ts"
import { deepSpans } from "./deep-spans.ts"
import { mathMdast, promoteDisplayParagraphs } from "./math-mdast.ts"
import { treeInParts } from "./parse-in-parts.ts"
import { mathSyntax } from "./math-syntax.ts"
import { cutByBytes, MAX_SEGMENT_BYTES, utf8Length } from "./text-runs.ts"

export type FrontMatterValue =
  | string
  | number
  | boolean
  | null
  | ReadonlyArray<FrontMatterValue>
  | { readonly [key: string]: FrontMatterValue }
export type FrontMatter = Readonly<Record<string, FrontMatterValue>>

export interface ParsedMarkdown {
  readonly root: Root
  readonly frontMatter: FrontMatter
  readonly warnings: ReadonlyArray<RenderWarning>
}

const MAX_FRONT_MATTER_DEPTH = 6

/**
 * Templates set front matter values as they are, one text run where a value has no space, so a
 * value is held to the bound the converter keeps body text to (text-runs.ts): past it, a word of
 * tens of thousands of characters would panic Typst's PDF export. No real title or abstract nears it.
 */
const MAX_FRONT_MATTER_VALUE_BYTES = MAX_SEGMENT_BYTES

/** Keeps what JSON can carry; dates become ISO dates, anything else is dropped; `cut` counts strings cut to the bound. */
const toJsonValue = (value: unknown, depth: number, cut: { count: number }): FrontMatterValue | undefined => {
  if (typeof value === "string" && utf8Length(value) > MAX_FRONT_MATTER_VALUE_BYTES) {
    cut.count++
    return cutByBytes(value, MAX_FRONT_MATTER_VALUE_BYTES)[0]!
  }
  if (value === null || typeof value === "string" || typeof value === "boolean") return value
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value)
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString().slice(0, 10)
  if (depth >= MAX_FRONT_MATTER_DEPTH) return undefined
  if (Array.isArray(value)) {
    return value.map((item) => toJsonValue(item, depth + 1, cut)).filter((item) => item !== undefined)
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as object)
      .map(([key, item]) => [key, toJsonValue(item, depth + 1, cut)] as const)
      .filter(([, item]) => item !== undefined)
    return Object.fromEntries(entries) as FrontMatterValue
  }
  return undefined
}

const readFrontMatter = (root: Root, warnings: Array<RenderWarning>): FrontMatter => {
  const node = root.children[0]
  if (node?.type !== "yaml") return {}
  const line = node.position?.start.line ?? 1
  let data: unknown
  try {
    data = parseYaml(node.value, { maxAliasCount: 50 })
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : "unreadable"
    warnings.push({ code: "front_matter_invalid", message: `front matter ignored: ${reason}`, line })
    return {}
  }
  if (data === null || data === undefined) return {}
  if (typeof data !== "object" || Array.isArray(data)) {
    warnings.push({ code: "front_matter_invalid", message: "front matter ignored: it must be a mapping of fields", line })
    return {}
  }
  const cut = { count: 0 }
  const frontMatter = toJsonValue(data, 0, cut) as FrontMatter
  if (cut.count > 0) {
    warnings.push({
      code: "front_matter_truncated",
      message: `${cut.count} front matter value(s) longer than ${MAX_FRONT_MATTER_VALUE_BYTES} bytes cut to that length`,
      line
    })
  }
  return frontMatter
}

const treeOf = (markdown: string, unwrapDeepSpans: boolean): Root =>
  fromMarkdown(markdown, {
    extensions: [frontmatter(["yaml"]), gfm(), mathSyntax()],
    mdastExtensions: [...(unwrapDeepSpans ? [deepSpans()] : []), frontmatterFromMarkdown(["yaml"]), gfmFromMarkdown(), mathMdast()]
  })

/**
 * The tree of the Markdown exactly as written (the tests compare the rewritten parses with it), but
 * for spans nested past what the converter shows (deep-spans.ts); a long document parsed in parts
 * (parse-in-parts.ts).
 */
export const parseTree = (markdown: string): Root => treeInParts(markdown, (part) => treeOf(part, true))

/** The tree exactly as written, every span kept: what the parser itself gives, for the tests that compare parsers. */
export const parseTreeWhole = (markdown: string): Root => treeOf(markdown, false)

/** The tree, its blocks counted part by part: a document of more than MAX_BLOCKS throws TooManyBlocks as soon as the count passes it. */
const boundedTree = (markdown: string): Root => {
  let blocks = 0
  return treeInParts(
    markdown,
    (part) => treeOf(part, true),
    (nodes) => {
      blocks += countBlocks(nodes)
      if (blocks > MAX_BLOCKS) throw new TooManyBlocks(blocks)
    }
  )
}

export const parseMarkdown = (markdown: string): ParsedMarkdown => {
  const root = boundedTree(cutContainerMarkers(markdown))
  promoteDisplayParagraphs(root)
  const warnings: Array<RenderWarning> = []
  const frontMatter = readFrontMatter(root, warnings)
  return { root, frontMatter, warnings }
}
