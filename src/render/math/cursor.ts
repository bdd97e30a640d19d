/**
 * A cursor over a list of sibling nodes. unified-latex attaches arguments to the macros it knows
 * (\frac, \sqrt, \text…) and leaves the others' arguments as the following siblings (`\hat x`,
 * `\tag{1}`), so a macro's arguments are those attached, then those taken from here.
 */
import type * as Ast from "@unified-latex/unified-latex-types"
import { refuse } from "./refusal.ts"

/** Strings split into characters, so that each letter, digit or sign is one node. */
export const characters = (nodes: ReadonlyArray<Ast.Node>): Array<Ast.Node> =>
  nodes.flatMap((n) =>
    n.type === "string" && n.content.length > 1 ? [...n.content].map((c): Ast.Node => ({ type: "string", content: c })) : [n]
  )

/** How a macro was written, for reasons: `\\frac`, but `^` and `_` as themselves. */
export const macroSource = (m: Ast.Macro): string => (m.content === "^" || m.content === "_" ? m.content : `\\${m.content}`)

export class Cursor {
  private readonly nodes: ReadonlyArray<Ast.Node>
  private index = 0

  constructor(nodes: ReadonlyArray<Ast.Node>) {
    this.nodes = characters(nodes)
  }

  get done(): boolean {
    while (this.nodes[this.index]?.type === "whitespace") this.index++
    return this.index >= this.nodes.length
  }

  /** The next node that is not whitespace, taken. */
  next(): Ast.Node | undefined {
    return this.done ? undefined : this.nodes[this.index++]
  }

  /** The next node that is not whitespace, left in place. */
  peek(): Ast.Node | undefined {
    return this.done ? undefined : this.nodes[this.index]
  }

  /** The node right after the current one, whitespace included (a number's next digit). */
  peekRaw(offset = 0): Ast.Node | undefined {
    return this.nodes[this.index + offset]
  }

  /** Everything left, taken. */
  takeRest(): ReadonlyArray<Ast.Node> {
    const rest = this.nodes.slice(this.index)
    this.index = this.nodes.length
    return rest
  }

  /** Everything left, in place: for finding a `\right`. */
  rest(): ReadonlyArray<Ast.Node> {
    return this.nodes.slice(this.index)
  }

  skip(count: number): void {
    this.index += count
  }

  /** A macro's first mandatory argument. */
  arg(m: Ast.Macro): ReadonlyArray<Ast.Node> {
    return this.mandatory(m, 1)[0] ?? []
  }

  /** A macro's first two mandatory arguments. */
  args2(m: Ast.Macro): readonly [ReadonlyArray<Ast.Node>, ReadonlyArray<Ast.Node>] {
    const [a = [], b = []] = this.mandatory(m, 2)
    return [a, b]
  }

  /** A macro's first three mandatory arguments (\fcolorbox). */
  args3(m: Ast.Macro): readonly [ReadonlyArray<Ast.Node>, ReadonlyArray<Ast.Node>, ReadonlyArray<Ast.Node>] {
    const [a = [], b = [], c = []] = this.mandatory(m, 3)
    return [a, b, c]
  }

  /** The optional `[…]` argument the parser attached (\sqrt[n]), or null. */
  optional(m: Ast.Macro): ReadonlyArray<Ast.Node> | null {
    return (m.args ?? []).find((a) => a.openMark === "[")?.content ?? null
  }

  /** Whether the parser read a `*` after the macro (\operatorname*). */
  starred(m: Ast.Macro): boolean {
    return (m.args ?? []).some((a) => a.openMark === "" && a.content.some((c) => c.type === "string" && c.content === "*"))
  }

  /** An optional `[…]` the parser left as characters (`\xrightarrow[under]{over}`), taken; or null. */
  bracketed(): ReadonlyArray<Ast.Node> | null {
    const open = this.peek()
    if (open?.type !== "string" || open.content !== "[") return null
    const start = this.nodes.indexOf(open, this.index)
    const close = this.nodes.findIndex((n, i) => i > start && n.type === "string" && n.content === "]")
    if (close < 0) return refuse("an unclosed [")
    this.index = close + 1
    return this.nodes.slice(start + 1, close)
  }

  /** A TeX length written after a primitive (`\kern-1.5em`, `\mkern 3mu`): sign, number and two-letter unit. */
  dimension(what: string): string {
    let text = ""
    while (!this.done && text.length < 20) {
      const node = this.nodes[this.index]!
      if (node.type !== "string") break
      text += node.content
      this.index++
      if (/[a-z]{2}$/.test(text)) return text
    }
    return refuse(`${what} needs a length`)
  }

  private mandatory(m: Ast.Macro, count: number): Array<ReadonlyArray<Ast.Node>> {
    const attached: Array<ReadonlyArray<Ast.Node>> = (m.args ?? []).filter((a) => a.openMark === "{").map((a) => a.content)
    while (attached.length < count) attached.push(this.following(macroSource(m)))
    return attached
  }

  /** The argument written after a command the parser left bare: a group's content, or one node. */
  following(what: string): ReadonlyArray<Ast.Node> {
    const node = this.next()
    if (node === undefined) return refuse(`${what} needs an argument`)
    return node.type === "group" ? node.content : [node]
  }
}
