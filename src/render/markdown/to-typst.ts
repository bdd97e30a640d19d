/**
 * mdast into Typst markup. The output is built only from our own tokens: every piece of user text
 * (text, code, URLs, alt text, language names) goes through `typstString`, so nothing a user writes
 * can become Typst code, markup, a label or a reference. Formulas go through src/render/math/,
 * which holds to the same rule.
 *
 * Nesting deeper than MAX_NESTING (block quotes, lists, inline spans) is flattened into the deepest
 * allowed level with one warning: Typst's own parser and layout have depth limits, and a document
 * nested 10,000 levels deep must still render.
 */
import type { Definition, FootnoteDefinition, Nodes, Parents, PhrasingContent, Root, RootContent, Table } from "mdast"
import GithubSlugger from "github-slugger"
import { definitions as collectDefinitions } from "mdast-util-definitions"
import { toString as headingText } from "mdast-util-to-string"
import { Formulas } from "../math/formulas.ts"
import type { RenderWarning } from "../common/warnings.ts"
import { MAX_HTML_DEPTH, parseFragment } from "./html/fragment.ts"
import { HtmlConverter } from "./html/to-typst.ts"
import { externalLink, LINK_TOO_LONG } from "./external-link.ts"
import { decodeImage, type EmbeddedImage } from "./images.ts"
import { paragraphParts } from "./long-paragraphs.ts"
import { rawText, TextRuns } from "./text-runs.ts"
import { typstString } from "../math/typst-literal.ts"

export const MAX_NESTING = 24

export interface ConversionOptions {
  /** SHA-256 of embedded images that Typst could not decode: they fall back to their alt text. */
  readonly undecodableImages?: ReadonlySet<string>
}

export interface TypstBody {
  readonly markup: string
  readonly images: ReadonlyArray<EmbeddedImage>
  readonly warnings: ReadonlyArray<RenderWarning>
}

const PAGEBREAK = /^<!--\s*pagebreak\s*-->$/i
const CJK = /[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/

/** A soft line break is a space, except between two CJK characters, where it is nothing. */
const softBreaks = (text: string): string =>
  text.replace(/[ \t]*\r?\n[ \t]*/g, (_match, offset: number, whole: string) => {
    const before = whole[offset - 1] ?? ""
    const after = whole[offset + _match.length] ?? ""
    return CJK.test(before) && CJK.test(after) ? "" : " "
  })

/**
 * The parts of one long paragraph (long-paragraphs.ts) as paragraphs that read as one: spaced by
 * the lines' leading, the parts after the first without a first-line indent. Weak spacing of a
 * paragraph's own at both ends keeps its distance from what comes before and after (a code block
 * or a heading asks for less than a paragraph, and the larger of two spacings wins).
 */
const continuedParagraph = (parts: ReadonlyArray<string>): string =>
  `#context [#v(par.spacing, weak: true)#set par(spacing: par.leading)\n${parts[0]}\n\n#set par(first-line-indent: 0pt)\n${parts.slice(1).join("\n\n")}#v(par.spacing, weak: true)]`

const ALIGN: Readonly<Record<string, string>> = { left: "left", center: "center", right: "right" }

const PARAGRAPH_BREAK = Symbol("paragraph break")
const SPACE: Nodes = { type: "text", value: " " }
const BLOCK_TYPES: ReadonlySet<string> = new Set([
  "paragraph",
  "heading",
  "blockquote",
  "list",
  "listItem",
  "table",
  "tableRow",
  "footnoteDefinition"
])

/** Whether any node of the tree is HTML (walked with a stack: a tree may be 10,000 levels deep). */
const isFragmentLink = (url: string): boolean => url.trim().length > 1 && url.trim().startsWith("#")

/**
 * Whether the document needs in-document targets: it holds HTML (ids, and links to them) or a
 * Markdown link to `#…` (a heading's anchor, as GitHub names it, or an HTML id).
 */
const hasTargets = (root: Root): boolean => {
  const stack: Array<Nodes> = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === "html" && !PAGEBREAK.test(node.value.trim())) return true
    if ((node.type === "link" || node.type === "definition") && isFragmentLink(node.url)) return true
    if ("children" in node) for (const child of node.children) stack.push(child)
  }
  return false
}

class Converter {
  private readonly warnings: Array<RenderWarning> = []
  private readonly images = new Map<string, EmbeddedImage>()
  private readonly footnoteLabels = new Map<string, string>()
  private readonly footnotesInProgress = new Set<string>()
  private readonly footnoteDefinitions = new Map<string, FootnoteDefinition>()
  private readonly definition: (identifier: string) => Definition | undefined
  private readonly formulas: Formulas
  private nestingWarned = false
  /**
   * Only for a document with HTML or `#…` links (made at once when such links may reach a target,
   * else at the first inline comment): a document without converts as it always did.
   */
  private html: HtmlConverter | undefined
  /** The headings' anchors, numbered as GitHub numbers repeated ones. */
  private readonly slugs = new GithubSlugger()
  /** The flow of inline content being converted, for the length of its text runs (text-runs.ts). */
  private runs = new TextRuns()

  constructor(
    root: Root,
    private readonly options: ConversionOptions
  ) {
    this.definition = collectDefinitions(root)
    this.formulas = new Formulas(root)
    this.html = hasTargets(root) ? new HtmlConverter() : undefined
    for (const node of root.children) {
      if (node.type === "footnoteDefinition") this.footnoteDefinitions.set(node.identifier, node)
    }
  }

  convert(root: Root): TypstBody {
    const body = this.blocks(root.children, 0)
    const markup = this.html ? this.html.resolve(body) : body
    return { markup, images: [...this.images.values()], warnings: [...this.warnings, ...this.formulas.collectedWarnings()] }
  }

  private warn(code: string, message: string, node: Nodes): void {
    this.warnings.push({ code, message, line: node.position?.start.line ?? null })
  }

  /** Whether a container at `depth` may open; past the limit its content joins its parent's level. */
  private mayNest(depth: number, node: Nodes): boolean {
    if (depth < MAX_NESTING) return true
    if (!this.nestingWarned) {
      this.nestingWarned = true
      this.warn("nesting_flattened", `content nested deeper than ${MAX_NESTING} levels is shown at level ${MAX_NESTING}`, node)
    }
    return false
  }

  /**
   * Past the nesting limit: the subtree's content without its structure, walked with an explicit
   * stack (recursing once per level would overflow the call stack long before 10,000 levels).
   * Block-level nodes still end in a paragraph break; inline content runs on.
   */
  private flat(nodes: ReadonlyArray<Nodes>): string {
    const out: Array<string> = []
    const stack: Array<Nodes | typeof PARAGRAPH_BREAK> = [...nodes].reverse()
    while (stack.length > 0) {
      const node = stack.pop()!
      if (node === PARAGRAPH_BREAK) {
        if (out.length > 0 && out[out.length - 1] !== "\n\n") out.push("\n\n")
        continue
      }
      switch (node.type) {
        case "text":
        case "inlineCode":
        case "break":
        case "link":
        case "linkReference":
        case "image":
        case "imageReference":
        case "footnoteReference":
        case "html":
        case "inlineMath":
          if ((node.type === "link" || node.type === "linkReference") && node.children.length > 0) break
          out.push(this.inline(node, MAX_NESTING))
          continue
        case "code":
        case "math":
          out.push(this.block(node, MAX_NESTING), "\n\n")
          continue
        case "tableCell":
          stack.push(SPACE)
          break
      }
      if ("children" in node) {
        if (BLOCK_TYPES.has(node.type)) stack.push(PARAGRAPH_BREAK)
        for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
      }
    }
    return out.join("").replace(/\n\n$/, "")
  }

  private blocks(nodes: ReadonlyArray<RootContent>, depth: number): string {
    if (nodes.some((node) => node.type === "html" && !PAGEBREAK.test(node.value.trim()))) return this.withHtml(nodes, depth, true)
    const out: Array<string> = []
    for (const node of nodes) {
      const block = this.block(node, depth)
      if (block !== "") out.push(block)
    }
    return out.join("\n\n")
  }

  private block(node: RootContent, depth: number): string {
    this.runs.reset()
    switch (node.type) {
      case "paragraph": {
        const parts = paragraphParts(node.children)
        if (parts.length === 1) return this.inlines(node.children, depth)
        return continuedParagraph(
          parts.map((part) => {
            this.runs.reset()
            return this.inlines(part, depth)
          })
        )
      }
      case "heading": {
        const heading = `#heading(level: ${node.depth})[${this.inlines(node.children, depth)}]`
        // The anchor GitHub gives the heading (`## Getting started` is #getting-started, a second
        // one #getting-started-1), which `#…` links reach; a generated label, never the text.
        const label = this.html?.label(this.slugs.slug(headingText(node)))
        return label === undefined ? heading : `${heading}<${label}>`
      }
      case "thematicBreak":
        return "#pr.thematic-break()"
      case "blockquote":
        return this.mayNest(depth, node) ? `#quote(block: true)[${this.blocks(node.children, depth + 1)}]` : this.flat(node.children)
      case "list":
        return this.list(node, depth)
      case "code":
        if (node.lang === "math") return this.formulas.block(node)
        return `#raw(block: true, ${node.lang ? `lang: ${typstString(node.lang)}, ` : ""}${typstString(rawText(node.value))})`
      case "math":
        return this.formulas.block(node)
      case "html":
        if (PAGEBREAK.test(node.value.trim())) return "#pagebreak(weak: true)"
        this.warn("html_dropped", "raw HTML is not rendered", node)
        return ""
      case "table":
        return this.table(node, depth)
      case "definition":
      case "footnoteDefinition":
      case "yaml":
        return ""
      default:
        // Phrasing content at block level (it occurs inside table cells and list items).
        return this.inline(node as PhrasingContent, depth)
    }
  }

  private list(node: Extract<RootContent, { type: "list" }>, depth: number): string {
    if (!this.mayNest(depth, node)) return this.flat(node.children)
    const tight = node.spread !== true && node.children.every((item) => item.spread !== true)
    const items = node.children.map((item) => {
      const box = item.checked === true || item.checked === false ? `#pr.checkbox(${item.checked})` : ""
      return `[${box}${this.blocks(item.children, depth + 1)}]`
    })
    const args = [`tight: ${tight}`]
    // In a task list the checkbox is the marker.
    if (!node.ordered && node.children.every((item) => typeof item.checked === "boolean")) args.push("marker: []")
    if (node.ordered) args.push(`start: ${Math.max(0, Math.min(node.start ?? 1, 999_999_999))}`)
    return `#${node.ordered ? "enum" : "list"}(${args.join(", ")}, ${items.join(", ")})`
  }

  private table(node: Table, depth: number): string {
    const columns = Math.max(1, ...node.children.map((row) => row.children.length))
    const align = Array.from({ length: columns }, (_, i) => ALIGN[node.align?.[i] ?? ""] ?? "auto")
    const row = (cells: ReadonlyArray<string>) => Array.from({ length: columns }, (_, i) => `[${cells[i] ?? ""}]`).join(", ")
    const [head, ...body] = node.children.map((r) =>
      r.children.map((cell) => {
        this.runs.reset()
        return this.inlines(cell.children, depth)
      })
    )
    const parts = [`columns: ${columns}`, `align: (${align.join(", ")},)`]
    if (head) parts.push(`table.header(${row(head)})`)
    for (const cells of body) parts.push(row(cells))
    return `#table(${parts.join(", ")})`
  }

  private inlines(nodes: ReadonlyArray<PhrasingContent>, depth: number): string {
    if (nodes.some((node) => node.type === "html")) return this.withHtml(nodes, depth, false)
    let out = ""
    for (const node of nodes) out += this.inline(node, depth)
    return out
  }

  /**
   * Siblings among which there is HTML, parsed as one fragment (html/fragment.ts) so that an element
   * opened in one HTML node wraps the Markdown up to where a later one closes it.
   */
  private withHtml(nodes: ReadonlyArray<RootContent>, depth: number, block: boolean): string {
    const html = nodes.map((node) => (node.type === "html" && !(block && PAGEBREAK.test(node.value.trim())) ? node.value : undefined))
    const at = nodes.find((node) => node.type === "html")!
    const fragment = parseFragment(html, block ? "\n" : "")
    if (fragment === undefined) {
      this.warn("html_dropped", `HTML nested deeper than ${MAX_HTML_DEPTH} levels is not rendered`, at)
      const markdown = nodes.filter((node) => node.type !== "html")
      return block ? this.blocks(markdown, depth) : this.inlines(markdown as Array<PhrasingContent>, depth)
    }
    this.html ??= new HtmlConverter()
    return this.html.convert(
      fragment,
      {
        text: (text) => this.runs.markup(text),
        slot: (i) => (block ? this.block(nodes[i]!, depth) : this.inline(nodes[i] as PhrasingContent, depth)),
        image: (url, alt, width) => this.image(url, alt, at, width),
        raw: (code, block) => `#raw(${block ? "block: true, " : ""}${typstString(rawText(code))})`,
        warn: (code, message) => this.warn(code, message, at)
      },
      block
    )
  }

  private span(fn: string, node: Parents & { children: Array<PhrasingContent> }, depth: number): string {
    if (!this.mayNest(depth, node)) return this.flat(node.children)
    return `#${fn}[${this.inlines(node.children, depth + 1)}]`
  }

  private inline(node: PhrasingContent, depth: number): string {
    switch (node.type) {
      case "text":
        return this.formulas.prose(softBreaks(node.value), node, (text) => this.runs.markup(text))
      case "inlineMath":
        return node.data?.display === true ? this.formulas.block(node) : this.formulas.inline(node)
      case "emphasis":
        return this.span("emph", node, depth)
      case "strong":
        return this.span("strong", node, depth)
      case "delete":
        return this.span("strike", node, depth)
      case "inlineCode":
        return `#raw(${typstString(rawText(node.value))})`
      case "break":
        return "#linebreak()"
      case "link":
        return this.link(node.url, node, depth)
      case "linkReference": {
        const target = this.definition(node.identifier)
        return target ? this.link(target.url, node, depth) : this.inlines(node.children, depth)
      }
      case "image":
        return this.image(node.url, node.alt ?? "", node)
      case "imageReference": {
        const target = this.definition(node.identifier)
        return this.image(target?.url ?? "", node.alt ?? "", node)
      }
      case "footnoteReference":
        return this.footnote(node.identifier, node, depth)
      case "html":
        this.warn("html_dropped", "raw HTML is not rendered", node)
        return ""
      default:
        return ""
    }
  }

  private link(url: string, node: Parents & { children: Array<PhrasingContent> }, depth: number): string {
    const content = this.mayNest(depth, node) ? this.inlines(node.children, depth + 1) : this.flat(node.children)
    // `#id` reaches a heading's anchor or an HTML element's id.
    if (this.html && isFragmentLink(url)) return this.html.inDocument(url.trim(), content)
    const target = externalLink(url)
    if (target._tag === "text") return content
    const shown = content === "" ? this.runs.markup(target.url) : content
    if (target._tag === "link") return `#link(${typstString(target.url)})[${shown}]`
    this.warn(LINK_TOO_LONG.code, LINK_TOO_LONG.message, node)
    return shown
  }

  /** `width` (in points, from HTML) is the width the image is shown at, never wider than its container. */
  private image(url: string, alt: string, node: Nodes, width?: number): string {
    const placeholder = `#pr.image-placeholder(cfg, ${alt === "" ? '""' : `[${this.separately(() => this.runs.markup(alt))}]`})`
    const decoded = decodeImage(url)
    if (decoded._tag === "embedded" && this.options.undecodableImages?.has(decoded.image.sha256)) {
      this.warn("image_invalid", `image not embedded: its ${decoded.image.kind.toUpperCase()} data is damaged`, node)
      return placeholder
    }
    switch (decoded._tag) {
      case "embedded": {
        this.images.set(decoded.image.path, decoded.image)
        const path = typstString(decoded.image.path)
        // HTML's width is the width shown, larger or smaller than the image's own, within the container.
        return width === undefined
          ? `#pr.md-image(${path}, alt: ${typstString(alt)})`
          : `#layout(size => box(image(${path}, alt: ${typstString(alt)}, width: calc.min(${width}pt, size.width))))`
      }
      case "remote":
        this.warn("image_not_embedded", "only data: URIs are embedded; the image was replaced by its alt text", node)
        return placeholder
      case "invalid":
        this.warn("image_invalid", `image not embedded: ${decoded.reason}`, node)
        return placeholder
    }
  }

  /** Converts content set apart from the flow around it (a note, a box), which goes on after it as before. */
  private separately(convert: () => string): string {
    const outer = this.runs
    this.runs = new TextRuns()
    try {
      return convert()
    } finally {
      this.runs = outer
    }
  }

  /** The first reference carries the note; later ones point at it through a label we generate. */
  private footnote(identifier: string, node: Nodes, depth: number): string {
    const existing = this.footnoteLabels.get(identifier)
    if (existing) return `#footnote(<${existing}>)`
    const definition = this.footnoteDefinitions.get(identifier)
    if (!definition || this.footnotesInProgress.has(identifier)) return ""
    const label = `pr-fn-${this.footnoteLabels.size + 1}`
    this.footnoteLabels.set(identifier, label)
    this.footnotesInProgress.add(identifier)
    const content = this.separately(() => this.blocks(definition.children, depth))
    this.footnotesInProgress.delete(identifier)
    if (content === "") this.warn("footnote_empty", "a footnote has no content", node)
    return `#footnote[${content}]<${label}>`
  }
}

export const toTypst = (root: Root, options: ConversionOptions = {}): TypstBody => new Converter(root, options).convert(root)
