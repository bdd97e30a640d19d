/**
 * GitHub's subset of HTML (a sanitised hast tree, fragment.ts) into Typst markup, by the rule of
 * ../to-typst.ts: the output is built only from our own tokens, and user text reaches it only
 * through `typstString` (by way of the host's text runs). Attribute values are read as numbers or
 * matched against fixed words; `id`s become labels we number ourselves.
 */
import type { Element, ElementContent } from "hast"
import { typstString } from "../../math/typst-literal.ts"
import { externalLink, LINK_TOO_LONG } from "../external-link.ts"
import type { Fragment } from "./fragment.ts"

export interface HtmlHost {
  /** User text as markup, in the current flow's text runs. */
  text(text: string): string
  /** The conversion of the Markdown sibling that slot `index` stands for. */
  slot(index: number): string
  /** An image as markup: embedded from a data: URI, or its placeholder; `width` in points. */
  image(url: string, alt: string, width: number | undefined): string
  /** `code` wrapped in `#raw`, cut to runs Typst can take. */
  raw(code: string, block: boolean): string
  warn(code: string, message: string): void
}

const BLOCKS: ReadonlySet<string> = new Set([
  ..."address article aside blockquote details dd div dl dt figure footer h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table ul".split(
    " "
  )
])
const SPANS: Readonly<Record<string, string>> = {
  b: "strong",
  strong: "strong",
  i: "emph",
  em: "emph",
  var: "emph",
  s: "strike",
  strike: "strike",
  del: "strike",
  ins: "underline",
  mark: "highlight",
  sup: "super",
  sub: "sub"
}
const ALIGN: Readonly<Record<string, string>> = { left: "left", center: "center", right: "right", justify: "left" }
/** What the sanitiser puts before every id and name, so that they cannot clobber the page's own. */
const CLOBBER_PREFIX = "user-content-"
/** Stands where an in-document link opens until the document's ids are all known (`resolve`). */
const PENDING = /\u0001(\d+)\u0001/g
/** CSS pixels to points. */
const PX = 0.75
const MAX_DEPTH = 24

const whitespace = (text: string): string => text.replace(/[ \t\n\r\f]+/g, " ")
const textOf = (node: ElementContent): string =>
  node.type === "text" ? node.value : node.type === "element" ? node.children.map(textOf).join("") : ""
const number = (value: unknown, max: number): number | undefined => {
  const n = typeof value === "number" ? value : typeof value === "string" ? Number.parseFloat(value) : Number.NaN
  return Number.isFinite(n) && n > 0 ? Math.min(Math.round(n), max) : undefined
}
const anchorKey = (id: string): string => (id.startsWith(CLOBBER_PREFIX) ? id.slice(CLOBBER_PREFIX.length) : id)

/** One document's HTML: its ids and the links to them are shared by all of its fragments. */
export class HtmlConverter {
  private readonly labels = new Map<string, string>()
  private readonly links: Array<string> = []
  private host!: HtmlHost
  private slots!: ReadonlyMap<string, number>
  private blockSlots = false

  /** A fragment as markup: at block level (`blockSlots`) its Markdown siblings are blocks, else inline. */
  convert(fragment: Fragment, host: HtmlHost, blockSlots: boolean): string {
    const outer = { host: this.host, slots: this.slots, blockSlots: this.blockSlots }
    this.host = host
    this.slots = fragment.slots
    this.blockSlots = blockSlots
    try {
      for (const name of fragment.dropped) host.warn("html_dropped", `the HTML element <${name}> is not rendered`)
      // A fragment's root holds no doctype: what it holds is element content.
      const children = fragment.tree.children as Array<ElementContent>
      return blockSlots ? this.flow(children, 0) : this.inlines(children, 0)
    } finally {
      Object.assign(this, outer)
    }
  }

  /** The finished markup with every in-document link pointing at its target, or plain where it has none. */
  resolve(markup: string): string {
    return markup.replace(PENDING, (_m, i: string) => {
      const label = this.labels.get(this.links[Number(i)]!)
      return label === undefined ? "#" : `#link(<${label}>)`
    })
  }

  private isBlock(node: ElementContent): boolean {
    if (node.type !== "element") return false
    if (this.slots.has(node.tagName)) return this.blockSlots
    return BLOCKS.has(node.tagName)
  }

  /** Block content: runs of inline nodes become paragraphs between the blocks. */
  private flow(nodes: ReadonlyArray<ElementContent>, depth: number): string {
    const out: Array<string> = []
    let run: Array<ElementContent> = []
    const flush = () => {
      const paragraph = this.inlines(run, depth).trim()
      if (paragraph !== "" && paragraph !== '#" "') out.push(paragraph)
      run = []
    }
    for (const node of nodes) {
      if (!this.isBlock(node)) {
        if (run.length > 0 || node.type !== "text" || node.value.trim() !== "") run.push(node)
        continue
      }
      flush()
      const block = this.element(node as Element, depth)
      if (block !== "") out.push(block)
    }
    flush()
    return out.join("\n\n")
  }

  private inlines(nodes: ReadonlyArray<ElementContent>, depth: number): string {
    let out = ""
    for (const node of nodes) {
      if (node.type === "text") out += this.host.text(whitespace(node.value))
      else if (node.type === "element") out += this.element(node, depth)
    }
    return out
  }

  /** An element's content, as blocks when it holds any, else inline. */
  private content(node: Element, depth: number): string {
    if (depth >= MAX_DEPTH) return this.host.text(whitespace(textOf(node)).trim())
    return node.children.some((child) => this.isBlock(child))
      ? this.flow(node.children, depth + 1)
      : this.inlines(node.children, depth + 1).trim()
  }

  private element(node: Element, depth: number): string {
    const slot = this.slots.get(node.tagName)
    if (slot !== undefined) return this.host.slot(slot)
    return this.anchor(node) + this.aligned(node, this.markup(node, depth))
  }

  private markup(node: Element, depth: number): string {
    const tag = node.tagName
    const span = SPANS[tag]
    if (span !== undefined) return `#${span}[${this.content(node, depth)}]`
    switch (tag) {
      case "br":
        return "#linebreak()"
      case "hr":
        return "#pr.thematic-break()"
      case "code":
      case "tt":
      case "samp":
        return this.code(node, depth)
      case "kbd":
        return `#box(stroke: 0.5pt + luma(140), inset: (x: 2pt), outset: (y: 2pt), radius: 2pt)[${this.code(node, depth)}]`
      case "pre":
        if (this.wrapsMarkdown(node)) return this.content(node, depth)
        return this.host.raw(textOf(node).replace(/^\n/, "").replace(/\n$/, ""), true)
      case "h1":
      case "h2":
      case "h3":
      case "h4":
      case "h5":
      case "h6":
        return `#heading(level: ${tag.slice(1)})[${this.inlines(node.children, depth + 1).trim()}]`
      case "blockquote":
        return `#quote(block: true)[${this.content(node, depth)}]`
      case "ul":
      case "ol":
        return this.list(node, depth)
      case "dt":
        return `#strong[${this.content(node, depth)}]`
      case "dd":
        return `#pad(left: 1.5em)[${this.content(node, depth)}]`
      case "details":
        return `#block[${this.content(node, depth)}]`
      case "summary":
        return `#block[#strong[${this.content(node, depth)}]]`
      case "img":
        return this.image(node)
      case "picture": {
        const fallback = node.children.find((child): child is Element => child.type === "element" && child.tagName === "img")
        return fallback ? this.image(fallback) : ""
      }
      case "table":
        return this.table(node, depth)
      case "a":
        return this.link(node, depth)
      case "input":
        return node.properties.checked === true ? "☑ " : "☐ "
      case "rp":
        return ""
      default:
        return this.content(node, depth)
    }
  }

  /** Code as raw text; where it wraps Markdown (`<kbd>` text `</kbd>`, `<pre>` blocks `</pre>`), that Markdown's conversion. */
  private code(node: Element, depth: number): string {
    return this.wrapsMarkdown(node) ? this.content(node, depth) : this.host.raw(whitespace(textOf(node)), false)
  }

  private wrapsMarkdown(node: ElementContent): boolean {
    return node.type === "element" && (this.slots.has(node.tagName) || node.children.some((child) => this.wrapsMarkdown(child)))
  }

  /** `align` on a block: left, center or right; on an image only `center` takes it out of the line. */
  private aligned(node: Element, markup: string): string {
    const align = ALIGN[String(node.properties.align ?? "").toLowerCase()]
    if (align === undefined || markup === "") return markup
    if (node.tagName === "img" ? align !== "center" : !BLOCKS.has(node.tagName)) return markup
    return `#align(${align})[${markup}]`
  }

  /** The label of the target `key` (an id, or a heading's anchor), unless an earlier one took it. */
  label(key: string): string | undefined {
    if (this.labels.has(key)) return undefined
    const label = `pr-html-${this.labels.size + 1}`
    this.labels.set(key, label)
    return label
  }

  /** A target for `#id` links: the first element with an id (or an anchor's name) gets a label. */
  private anchor(node: Element): string {
    const id = node.properties.id ?? (node.tagName === "a" ? node.properties.name : undefined)
    if (typeof id !== "string" || id === "") return ""
    const label = this.label(anchorKey(id))
    return label === undefined ? "" : `#metadata(none)<${label}>`
  }

  private link(node: Element, depth: number): string {
    const href = typeof node.properties.href === "string" ? node.properties.href.trim() : ""
    const content = this.content(node, depth)
    if (href.startsWith("#") && href.length > 1) return this.inDocument(href, content)
    const target = externalLink(href)
    if (target._tag === "text") return content
    const shown = content === "" ? this.host.text(target.url) : content
    if (target._tag === "link") return `#link(${typstString(target.url)})[${shown}]`
    this.host.warn(LINK_TOO_LONG.code, LINK_TOO_LONG.message)
    return shown
  }

  /** A link to `#id`: to the element with that id wherever it is, or its content alone if there is none. */
  inDocument(href: string, content: string): string {
    this.links.push(anchorKey(decodeURIComponentSafe(href.slice(1))))
    return `\u0001${this.links.length - 1}\u0001[${content}]`
  }

  private image(node: Element): string {
    const src = typeof node.properties.src === "string" ? node.properties.src : ""
    const alt = typeof node.properties.alt === "string" ? node.properties.alt : ""
    const width = number(node.properties.width, 10_000)
    return this.host.image(src, whitespace(alt).trim(), width === undefined ? undefined : width * PX)
  }

  private list(node: Element, depth: number): string {
    if (depth >= MAX_DEPTH) return this.content(node, depth)
    const items = node.children
      .filter((child): child is Element => child.type === "element" && child.tagName === "li")
      .map((item) => `[${this.anchor(item)}${this.content(item, depth + 1)}]`)
    if (items.length === 0) return ""
    const start = number(node.properties.start, 999_999_999)
    const args = ["tight: true", ...(node.tagName === "ol" && start !== undefined ? [`start: ${start}`] : [])]
    return `#${node.tagName === "ol" ? "enum" : "list"}(${args.join(", ")}, ${items.join(", ")})`
  }

  /** Rows of cells placed on a grid, as the HTML table model places them, to count the columns. */
  private table(node: Element, depth: number): string {
    const rows: Array<Element> = []
    const collect = (parent: Element) => {
      for (const child of parent.children) {
        if (child.type !== "element") continue
        if (child.tagName === "tr") rows.push(child)
        else if (child.tagName === "thead" || child.tagName === "tbody" || child.tagName === "tfoot") collect(child)
      }
    }
    collect(node)
    const taken: Array<Array<boolean>> = []
    let columns = 1
    const cells: Array<string> = []
    rows.forEach((row, r) => {
      let c = 0
      for (const cell of row.children) {
        if (cell.type !== "element" || (cell.tagName !== "td" && cell.tagName !== "th")) continue
        while (taken[r]?.[c]) c++
        const colspan = number(cell.properties.colSpan, 100) ?? 1
        const rowspan = Math.min(number(cell.properties.rowSpan, 100) ?? 1, rows.length - r)
        for (let y = r; y < r + rowspan; y++) {
          const occupied = taken[y] ?? []
          for (let x = c; x < c + colspan; x++) occupied[x] = true
          taken[y] = occupied
        }
        c += colspan
        columns = Math.max(columns, c)
        const body = this.content(cell, depth + 1)
        const text = cell.tagName === "th" ? `#strong[${body}]` : body
        const align = ALIGN[String(cell.properties.align ?? "").toLowerCase()]
        const args = [
          ...(colspan > 1 ? [`colspan: ${colspan}`] : []),
          ...(rowspan > 1 ? [`rowspan: ${rowspan}`] : []),
          ...(align ? [`align: ${align}`] : [])
        ]
        cells.push(args.length > 0 ? `table.cell(${args.join(", ")})[${text}]` : `[${text}]`)
      }
    })
    if (cells.length === 0) return ""
    return `#table(columns: ${columns}, ${cells.join(", ")})`
  }
}

const decodeURIComponentSafe = (text: string): string => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
