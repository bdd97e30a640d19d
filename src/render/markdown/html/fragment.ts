/**
 * The HTML of one list of Markdown siblings parsed as one fragment, so that an element opened in
 * one HTML node and closed in a later one (`<details>` … Markdown … `</details>`, `<sup>`, text,
 * `</sup>`) wraps what lies between, as GitHub shows it. Every sibling that is not HTML stands in
 * the fragment as an empty placeholder element (a slot), which the converter fills with that
 * sibling's conversion. parse5 parses; the tree is then sanitised to GitHub's subset.
 */
import type { Element, Root as HastRoot, Nodes as HastNodes } from "hast"
import { fromHtml } from "hast-util-from-html"
import { sanitize } from "hast-util-sanitize"
import { isAllowed, STRIPPED, schemaWith } from "./schema.ts"

export interface Fragment {
  readonly tree: HastRoot
  /** The sibling each slot's tag name stands for, by index. */
  readonly slots: ReadonlyMap<string, number>
  /** Elements outside the subset, in document order, once each. */
  readonly dropped: ReadonlyArray<string>
}

/**
 * How deep tags may nest in a fragment. hast-util-from-parse5 and the sanitiser recurse once per
 * level and overflow the call stack near 10,000; no README nests a hundred.
 */
export const MAX_HTML_DEPTH = 256
const VOID = new Set("area base br col embed hr img input link meta source track wbr".split(" "))
const TAG = /<(\/?)([a-zA-Z][^\s/>]*)[^>]*?(\/?)>/g

/** The depth the tags would nest to if every one were closed where written (an upper bound, near enough). */
const tagDepth = (html: string): number => {
  let depth = 0
  let max = 0
  for (const [, closing, name, selfClosing] of html.matchAll(TAG)) {
    if (closing) depth = Math.max(0, depth - 1)
    else if (!selfClosing && !VOID.has(name!.toLowerCase())) max = Math.max(max, ++depth)
  }
  return max
}

/** A slot's tag name: a prefix no HTML of these siblings contains, so user HTML cannot forge one. */
const slotPrefix = (html: string): string => {
  const lower = html.toLowerCase()
  let n = 0
  while (lower.includes(`prslot${n}x`)) n++
  return `prslot${n}x`
}

/**
 * `html[i]` is a sibling's HTML, or undefined where the sibling is Markdown. Undefined when the
 * tags nest deeper than MAX_HTML_DEPTH.
 */
export const parseFragment = (html: ReadonlyArray<string | undefined>, separator: string): Fragment | undefined => {
  const written = html.filter((h) => h !== undefined).join("")
  if (tagDepth(written) > MAX_HTML_DEPTH) return undefined
  const prefix = slotPrefix(written)
  const slots = new Map<string, number>()
  const source = html
    .map((h, i) => {
      if (h !== undefined) return h
      const name = `${prefix}${i}`
      slots.set(name, i)
      return `<${name}></${name}>`
    })
    .join(separator)
  const parsed = fromHtml(source, { fragment: true })
  const dropped = new Set<string>()
  const walk = (node: HastNodes): void => {
    if (node.type === "element") {
      if (!isAllowed(node.tagName) && !slots.has(node.tagName)) dropped.add(node.tagName)
      if (STRIPPED.includes(node.tagName)) return
    }
    if ("children" in node) for (const child of node.children) walk(child)
    // A template's content is a separate fragment in hast.
    if (node.type === "element" && (node as Element).content) walk((node as Element).content!)
  }
  walk(parsed)
  const tree = sanitize(parsed, schemaWith([...slots.keys()])) as HastRoot
  return { tree, slots, dropped: [...dropped] }
}
