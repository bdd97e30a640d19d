/**
 * A LaTeX formula into Typst math markup, or a refusal. The formula is parsed by unified-latex
 * into a tree; the markup is written from that tree by the fixed tables of symbols.ts. Nothing a
 * user writes becomes a Typst name: letters go out one at a time (Typst reads `ab` as one
 * identifier), digits as numbers, every other character either as a symbol name from the table or
 * inside a string literal built by typstString. So no `#` (code), `<…>` (label), `@` (reference)
 * or `$` from the formula can take effect. A macro or environment not in the tables is refused,
 * and the converter shows the source instead.
 */
import type * as Ast from "@unified-latex/unified-latex-types"
import { parseLatex } from "./latex-parser.ts"
import { typstString } from "./typst-literal.ts"
import { type Atom, atom, renderAtom } from "./atoms.ts"
import { Cursor, characters, macroSource } from "./cursor.ts"
import { Refusal, refuse } from "./refusal.ts"
import {
  ALIGNMENTS,
  CHARACTERS,
  DELIMITERS,
  ESCAPED_CHARACTERS,
  FRACTIONS,
  MATRICES,
  NEGATIONS,
  OPERATORS,
  SIZES,
  SPACES,
  SYMBOLS,
  TEXTS,
  WRAPPERS
} from "./symbols.ts"

export interface MathConversion {
  /** Typst math markup, without the surrounding dollars. */
  readonly typst: string
  /** Display formulas only: the number to show from \tag{…} (as text), or null. */
  readonly tag: string | null
  /** Display formulas only: \notag or \nonumber was given. */
  readonly notag: boolean
  /** Display formulas only: the user's \label{…} key (plain text), or null. */
  readonly label: string | null
  /** \ref{…} / \eqref{…} keys in order; in `typst` each is REF_PLACEHOLDER(i). */
  readonly references: ReadonlyArray<{ readonly key: string; readonly eqref: boolean }>
}

export type MathResult = { readonly ok: true; readonly value: MathConversion } | { readonly ok: false; readonly reason: string }

/**
 * Stands for the i-th reference in `typst`. Control characters never occur in converted output
 * (typstString escapes them, and the tables hold none), so the placeholder cannot be forged.
 */
export const REF_PLACEHOLDER = (i: number): string => `\u0000ref${i}\u0000`

/** Past this depth of groups, arguments and environments the formula is refused (the parser and we recurse). */
export const MAX_MATH_DEPTH = 64
/** Longer formulas are refused: nobody writes one, and parsing time grows with length. */
export const MAX_MATH_LENGTH = 10_000

/**
 * LaTeX sets the columns of `cases` a quad apart; Typst's alignment point adds no space, so a value
 * and its condition would touch (`1C_i < 8`).
 */
const CASES_SEPARATOR = ["&", "quad"]

const isLetter = (c: string) => /^[A-Za-z]$/.test(c)
const isDigit = (c: string) => /^[0-9]$/.test(c)

const envName = (node: Ast.Environment): string => {
  // unified-latex gives a math environment's name as a string node, despite its types.
  const env = node.env as unknown
  return typeof env === "string" ? env : ((env as Ast.String).content ?? "")
}

/**
 * Atoms separated by spaces, so that letters stay single names; but Typst sets a space next to a
 * string literal as a space, so none is written beside one (`"H"_(2)"O"`, not `"H"_(2) "O"`).
 */
const joinAtoms = (parts: ReadonlyArray<string>): string =>
  parts.reduce(
    (markup, part) => (markup === "" ? part : markup.endsWith('"') || part.startsWith('"') ? markup + part : `${markup} ${part}`),
    ""
  )

class Emitter {
  private depth = 0
  tag: string | null = null
  notag = false
  label: string | null = null
  readonly references: Array<{ key: string; eqref: boolean }> = []

  constructor(private readonly mode: "inline" | "display") {}

  /** A list of siblings as markup. */
  list(nodes: ReadonlyArray<Ast.Node>): string {
    if (++this.depth > MAX_MATH_DEPTH) refuse(`nested deeper than ${MAX_MATH_DEPTH} levels`)
    const cursor = new Cursor(nodes)
    const atoms: Array<Atom> = []
    const push = (base: string, group = false) => atoms.push(atom(base, group))
    const script = (kind: "sub" | "sup", content: string) => {
      let target = atoms[atoms.length - 1]
      if (target?.[kind] != null) refuse(kind === "sub" ? "double subscript" : "double superscript")
      if (target === undefined) {
        target = atom("")
        atoms.push(target)
      }
      target[kind] = content
    }
    for (let node = cursor.next(); node !== undefined; node = cursor.next()) {
      switch (node.type) {
        case "string":
          // Inside a top-level group the parser leaves `^` and `_` as characters.
          if (node.content === "^" || node.content === "_")
            script(node.content === "^" ? "sup" : "sub", this.list(cursor.following(node.content)))
          else this.character(node.content, cursor, atoms, push)
          break
        case "group": {
          const inner = this.list(node.content)
          // A group of more than one token keeps its scripts with `attach`, which holds it whole.
          push(inner === "" ? '""' : inner, !/^[A-Za-z0-9.]*$/.test(inner))
          break
        }
        case "macro":
          if (node.content === "^" || node.content === "_") script(node.content === "^" ? "sup" : "sub", this.list(cursor.arg(node)))
          else if (node.content === "limits" || node.content === "nolimits") {
            const target = atoms[atoms.length - 1] ?? refuse(`${macroSource(node)} without an operator`)
            target.limits = node.content === "limits" ? "limits" : "scripts"
          } else {
            const base = this.macro(node, cursor)
            if (base !== null) push(base)
          }
          break
        case "environment":
        case "mathenv":
          push(this.environment(node))
          break
        case "comment":
          refuse("a % comment (write \\% for a percent sign)")
          break
        case "parbreak":
          refuse("a blank line inside a formula")
          break
        default:
          refuse(`unsupported LaTeX (${node.type})`)
      }
    }
    this.depth--
    return joinAtoms(atoms.map(renderAtom))
  }

  /** One character of the formula: letters and numbers as themselves, signs by their symbol names, the rest as text. */
  private character(c: string, cursor: Cursor, atoms: Array<Atom>, push: (base: string) => void): void {
    if (isDigit(c)) {
      let number = c
      for (;;) {
        const n = cursor.peekRaw()
        const after = cursor.peekRaw(1)
        if (n?.type === "string" && isDigit(n.content)) number += n.content
        else if (n?.type === "string" && n.content === "." && after?.type === "string" && isDigit(after.content)) number += "."
        else break
        cursor.skip(1)
      }
      push(number)
    } else if (isLetter(c)) push(c)
    else if (c === "'") {
      const target = atoms[atoms.length - 1]
      if (target === undefined || target.sup !== null) push("prime")
      else target.primes++
    } else if (c === "&") refuse("& outside an alignment environment")
    else if (c === "{" || c === "}") refuse("unbalanced braces")
    else push(CHARACTERS[c] ?? typstString(c))
  }

  /** A macro as the markup of one atom, or null when it writes nothing of its own (scripts, \\tag…). */
  private macro(m: Ast.Macro, s: Cursor): string | null {
    const name = m.content
    const symbol = SYMBOLS[name] ?? (OPERATORS.has(name) ? name : undefined)
    if (symbol !== undefined) return symbol
    const space = SPACES[name]
    if (space !== undefined) return space === "" ? null : space
    const escaped = ESCAPED_CHARACTERS[name]
    if (escaped !== undefined) return typstString(escaped)
    const wrapper = WRAPPERS[name]
    if (wrapper !== undefined) {
      const index = name === "sqrt" ? s.optional(m) : null
      const body = this.list(s.arg(m))
      if (index !== null) return `root(${this.list(index)}, ${body})`
      return `${wrapper}(${body})${wrapper.includes("(") ? ")" : ""}`
    }
    const fraction = FRACTIONS[name]
    if (fraction !== undefined) {
      const [a, b] = s.args2(m)
      const call = `${fraction.fn}(${this.list(a)}, ${this.list(b)})`
      return fraction.style ? `${fraction.style}(${call})` : call
    }
    const textStyle = TEXTS[name]
    if (textStyle !== undefined) {
      const text = typstString(plainText(s.arg(m), macroSource(m)))
      return textStyle ? `${textStyle}(${text})` : text
    }
    if (SIZES.has(name)) {
      // Outside \left…\right a sized bar is ordinary, as a bare one is (`\Big|_0^1`).
      const sized = delimiter(s.next())
      return sized.startsWith("bar.") ? `class("normal", ${sized})` : sized
    }
    switch (name) {
      case "operatorname": {
        const op = `op(${typstString(plainText(s.arg(m), macroSource(m)))})`
        return s.starred(m) ? `limits(${op})` : op
      }
      case "underbrace":
      case "overbrace": {
        const body = this.list(s.arg(m))
        // The brace's label is the script that follows it.
        const follows = s.peek()
        if (follows?.type === "macro" && follows.content === (name === "underbrace" ? "_" : "^")) {
          s.next()
          return `${name}(${body}, ${this.list(s.arg(follows))})`
        }
        return `${name}(${body})`
      }
      case "overset":
      case "underset":
      case "stackrel": {
        const [over, base] = s.args2(m)
        return `limits(${this.list(base) || '""'})${name === "underset" ? "_" : "^"}(${this.list(over)})`
      }
      case "substack":
        // Lines under a big operator: Typst breaks lines inside a script as in a display.
        return this.aligned(s.arg(m))
      case "xrightarrow":
      case "xleftarrow":
        // A long arrow rather than `stretch`: stretched arrows assemble badly in Noto Sans Math (Typst warns).
        return `limits(${name === "xrightarrow" ? "arrow.r.long" : "arrow.l.long"})^(${this.list(s.arg(m))})`
      case "bmod":
        return "mod"
      case "mod":
        return "quad mod"
      case "pmod":
        return `quad paren.l mod ${this.list(s.arg(m))} paren.r`
      case "not": {
        const follows = s.next()
        const key = follows?.type === "macro" || follows?.type === "string" ? follows.content : ""
        return NEGATIONS[key] ?? refuse("\\not before something other than =, <, >, \\in, \\subset, \\equiv, \\le, \\ge, \\sim, \\approx")
      }
      case "left":
        return this.leftRight(s)
      case "right":
        return refuse("\\right without \\left")
      case "middle":
        return `mid(${delimiter(s.next())})`
      case "displaystyle":
      case "textstyle":
      case "scriptstyle": {
        // The style holds to the end of the group.
        const rest = s.takeRest()
        const style = name === "displaystyle" ? "display" : name === "textstyle" ? "inline" : "script"
        return `${style}(${this.list(rest) || '""'})`
      }
      case "\\":
        return "\\"
      case "tag":
        this.tag = this.displayText(m, s)
        return null
      case "label":
        this.label = this.displayText(m, s)
        return null
      case "notag":
      case "nonumber":
        this.displayOnly(m)
        this.notag = true
        return null
      case "ref":
      case "eqref":
        this.references.push({ key: plainText(s.arg(m), macroSource(m)), eqref: name === "eqref" })
        return REF_PLACEHOLDER(this.references.length - 1)
    }
    return refuse(`unsupported command ${macroSource(m)}`)
  }

  private displayOnly(m: Ast.Macro): void {
    if (this.mode !== "display") refuse(`${macroSource(m)} in an inline formula`)
  }

  /** The plain-text argument of \\tag or \\label, which only display formulas have. */
  private displayText(m: Ast.Macro, s: Cursor): string {
    this.displayOnly(m)
    return plainText(s.arg(m), macroSource(m))
  }

  /** `\left` was just taken: the delimiter, the content up to the matching `\right`, its delimiter. */
  private leftRight(s: Cursor): string {
    const open = delimiter(s.next())
    const rest = s.rest()
    let level = 0
    let end = -1
    for (const [j, n] of rest.entries()) {
      if (n.type !== "macro") continue
      if (n.content === "left") level++
      if (n.content === "right" && level-- === 0) {
        end = j
        break
      }
    }
    if (end < 0) return refuse("\\left without \\right")
    // Consume the content and the \right itself, then its delimiter.
    const inner = this.list(rest.slice(0, end))
    s.skip(end + 1)
    const close = delimiter(s.next())
    return `lr(${joinAtoms([open, inner, close].filter((p) => p !== "")) || '""'})`
  }

  private environment(node: Ast.Environment): string {
    const name = envName(node)
    const matrix = MATRICES[name]
    if (matrix !== undefined) {
      const cells = this.rows(node.content)
        .map((row) => row.map((cell) => this.list(cell)).join(", "))
        .join("; ")
      const mat = `mat(delim: ${matrix}, ${cells})`
      return name === "smallmatrix" ? `inline(${mat})` : mat
    }
    if (name === "cases")
      return `cases(${this.rows(node.content)
        .map((row) => this.row(row, CASES_SEPARATOR))
        .join(", ")})`
    if (ALIGNMENTS.has(name)) {
      if (this.mode !== "display") refuse(`the ${name} environment in an inline formula`)
      return this.aligned(node.content)
    }
    return refuse(`unsupported environment ${name}`)
  }

  /** Rows of cells as Typst writes them in a display: `&` aligns, `\\` breaks the line. */
  private aligned(content: ReadonlyArray<Ast.Node>): string {
    return this.rows(content)
      .map((row) => this.row(row))
      .join(" \\ ")
  }

  private row(cells: ReadonlyArray<ReadonlyArray<Ast.Node>>, separator: ReadonlyArray<string> = ["&"]): string {
    return joinAtoms(cells.flatMap((cell, k) => [...(k > 0 ? separator : []), this.list(cell)]).filter((part) => part !== ""))
  }

  /** An environment's content split at `\\` into rows and at `&` into cells. */
  private rows(content: ReadonlyArray<Ast.Node>): Array<Array<Array<Ast.Node>>> {
    const rows: Array<Array<Array<Ast.Node>>> = [[[]]]
    for (const node of characters(content)) {
      const row = rows[rows.length - 1]!
      if (node.type === "macro" && node.content === "\\") rows.push([[]])
      else if (node.type === "string" && node.content === "&") row.push([])
      else row[row.length - 1]!.push(node)
    }
    // LaTeX allows a `\\` after the last row.
    const lastRow = rows[rows.length - 1]!
    if (rows.length > 1 && lastRow.length === 1 && lastRow[0]!.every((n) => n.type === "whitespace")) rows.pop()
    return rows
  }
}

const delimiter = (node: Ast.Node | undefined): string => {
  const key = node?.type === "string" ? node.content : node?.type === "macro" ? macroSource(node) : undefined
  const name = key === undefined ? undefined : DELIMITERS[key]
  if (name === undefined) return refuse("\\left, \\right or a size command before something that is not a delimiter")
  return name
}

/** The text of a \text, \operatorname, \tag, \label or \ref argument: characters and escaped characters only. */
const plainText = (nodes: ReadonlyArray<Ast.Node>, what: string): string =>
  nodes
    .map((n) => {
      if (n.type === "string") return n.content
      if (n.type === "whitespace") return " "
      if (n.type === "macro" && ESCAPED_CHARACTERS[n.content] !== undefined) return ESCAPED_CHARACTERS[n.content]
      if (n.type === "macro" && (n.content === "{" || n.content === "}")) return n.content
      if (n.type === "macro" && (n.content === " " || n.content === "," || n.content === ";" || n.content === "quad")) return " "
      if (n.type === "group") return plainText(n.content, what)
      return refuse(`only plain text inside ${what}`)
    })
    .join("")

/**
 * Braces deeper than MAX_MATH_DEPTH, or unbalanced, are refused before parsing: the parser
 * recurses per brace, and 10,000 of them would overflow its stack.
 */
const braceProblem = (latex: string): string | null => {
  let depth = 0
  for (let i = 0; i < latex.length; i++) {
    const c = latex[i]
    if (c === "\\") i++
    else if (c === "{" && ++depth > MAX_MATH_DEPTH) return `nested deeper than ${MAX_MATH_DEPTH} levels`
    else if (c === "}" && --depth < 0) return "unbalanced braces"
  }
  return depth === 0 ? null : "unbalanced braces"
}

export const latexToTypst = (latex: string, mode: "inline" | "display"): MathResult => {
  if (latex.length > MAX_MATH_LENGTH) return { ok: false, reason: `longer than ${MAX_MATH_LENGTH} characters` }
  const problem = braceProblem(latex)
  if (problem !== null) return { ok: false, reason: problem }
  try {
    const emitter = new Emitter(mode)
    const typst = emitter.list(parseLatex(latex))
    const { tag, notag, label, references } = emitter
    return { ok: true, value: { typst, tag, notag, label, references } }
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.message }
    // The parser's own errors (a stray `\begin`, say) and a stack overflow are refusals too.
    if (error instanceof RangeError) return { ok: false, reason: "nested too deeply" }
    return { ok: false, reason: `cannot be parsed: ${(error as Error).message.split("\n")[0]}` }
  }
}
