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
import { color, DELIMITER_SIZES, FONT_SIZES, length, nested } from "./code.ts"
import { arrayColumns, augment, matrixAlign } from "./arrays.ts"
import {
  ALIGNMENTS,
  ARROWS,
  CHARACTERS,
  CLASSES,
  DELIMITERS,
  ESCAPED_CHARACTERS,
  FRACTIONS,
  MATRICES,
  NEGATIONS,
  OPERATORS,
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
  /** Display formulas only: a \tag with math in it (`\tag{$*$}`), as math markup; `tag` is then null. */
  readonly tagMath: string | null
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
  parts.reduce((markup, part) => (markup === "" ? part : endsText(markup) || startsText(part) ? markup + part : `${markup} ${part}`), "")

/** Text from the converter's own code (`#pr.math-text("…")`) is text as much as a string literal is. */
const startsText = (markup: string) => markup.startsWith('"') || markup.startsWith("#")
const endsText = (markup: string) => markup.endsWith('"') || /#[^#]*(?:\)|\])$/.test(markup)

class Emitter {
  private depth = 0
  /** The size command in force (code.ts FONT_SIZES), 1 outside any. */
  private fontSize = 1
  tag: string | null = null
  tagMath: string | null = null
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
    const textMacro = TEXTS[name]
    if (textMacro !== undefined) {
      const text = this.text(s.arg(m), macroSource(m), textMacro.style)
      return textMacro.wrapper ? `${textMacro.wrapper}(${text})` : text
    }
    const delimiterSize = DELIMITER_SIZES[name]
    if (delimiterSize !== undefined) {
      // Outside \left…\right a sized bar is ordinary, as a bare one is (`\Big|_0^1`).
      const sized = delimiter(s.next())
      if (sized === "") return null
      const lr = `lr(${sized}, size: #${delimiterSize}%)`
      return sized.startsWith("bar.") ? `class("normal", ${lr})` : lr
    }
    const fontSize = FONT_SIZES[name]
    if (fontSize !== undefined) {
      // LaTeX's sizes are absolute: within \tiny, \Huge is 2.488 times the normal size, not \tiny's.
      const outer = this.fontSize
      this.fontSize = fontSize
      const sized = this.code(`#text(size: ${Math.round((fontSize / outer) * 1000) / 1000}em)`, s.takeRest())
      this.fontSize = outer
      return sized
    }
    const mathClass = CLASSES[name]
    if (mathClass !== undefined) return `class("${mathClass}", ${this.list(s.arg(m)) || '""'})`
    const arrow = ARROWS[name]
    if (arrow !== undefined) {
      const under = s.bracketed()
      const over = this.list(s.arg(m))
      return `limits(${arrow})${under === null ? "" : `_(${this.list(under)})`}^(${over || '""'})`
    }
    switch (name) {
      case "operatorname": {
        const arg = s.arg(m)
        const scripted = characters(arg).some(
          (n) => (n.type === "string" || n.type === "macro") && (n.content === "_" || n.content === "^")
        )
        const plain = scripted ? null : plainTextOrNull(arg)
        // A name with math in it (`\operatorname{arg\,max_x}`) is set upright as an operator.
        const op = plain !== null ? `op(${typstString(plain)})` : `op(upright(${this.list(arg) || '""'}))`
        return s.starred(m) ? `limits(${op})` : op
      }
      case "color":
        return this.code(`#text(fill: ${color(plainText(s.arg(m), macroSource(m)))})`, s.takeRest())
      case "textcolor": {
        const [spec, body] = s.args2(m)
        return this.code(`#text(fill: ${color(plainText(spec, macroSource(m)))})`, body)
      }
      case "colorbox": {
        const [spec, body] = s.args2(m)
        return this.code(
          `#box(fill: ${color(plainText(spec, macroSource(m)))}, inset: (x: 0.2em, y: 0.25em))`,
          [],
          this.text(body, macroSource(m))
        )
      }
      case "fcolorbox": {
        const [frame, fill, text] = s.args3(m)
        const body = this.text(text, macroSource(m))
        const stroke = color(plainText(frame, macroSource(m)))
        return this.code(
          `#box(fill: ${color(plainText(fill, macroSource(m)))}, stroke: 0.04em + ${stroke}, inset: (x: 0.2em, y: 0.25em))`,
          [],
          body
        )
      }
      case "boxed":
        return this.code("#box(stroke: 0.04em, inset: 0.25em)", s.arg(m))
      case "fbox":
        return this.code("#box(stroke: 0.04em, inset: 0.25em)", [], this.text(s.arg(m), macroSource(m)))
      case "rule": {
        const raise = s.optional(m)
        const [width, height] = s.args2(m).map((a) => length(plainText(a, macroSource(m))))
        const baseline = raise === null ? "" : `, baseline: -${length(plainText(raise, macroSource(m)))}`.replace("--", "")
        return `#box(width: ${width}, height: ${height}, fill: black${baseline})`
      }
      case "kern":
      case "mkern":
      case "hskip":
      case "mskip":
        return `#h(${length(s.dimension(macroSource(m)))})`
      case "hspace":
      case "mspace":
        return `#h(${length(plainText(s.arg(m), macroSource(m)))})`
      case "phantom":
        return this.code("#hide", s.arg(m))
      case "hphantom":
        return `#box(height: 0pt)[${this.code("#hide", s.arg(m))}]`
      case "vphantom":
        return `#box(width: 0pt)[${this.code("#hide", s.arg(m))}]`
      case "smash":
        s.optional(m)
        return this.code("#box(height: 0pt)", s.arg(m))
      case "underbracket":
      case "overbracket":
      case "underbrace":
      case "overbrace": {
        const body = this.list(s.arg(m))
        // The brace's label is the script that follows it.
        const follows = s.peek()
        if (follows?.type === "macro" && follows.content === (name.startsWith("under") ? "_" : "^")) {
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
      case "tag": {
        this.displayOnly(m)
        const arg = s.arg(m)
        const plain = plainTextOrNull(arg)
        if (plain !== null) this.tag = plain
        else this.tagMath = this.text(arg, macroSource(m))
        return null
      }
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

  /** Code the converter builds (code.ts) around a nested formula: these nodes, or markup already written. */
  private code(head: string, nodes: ReadonlyArray<Ast.Node>, markup?: string): string {
    return `${head}${nested(markup ?? this.list(nodes), this.mode === "display")}`
  }

  /**
   * The argument of \text and its kin: its words in the text face around the formula (the
   * template's `math-text`), a formula written inside it (`\text{if $x > 0$}`) as math.
   */
  private text(nodes: ReadonlyArray<Ast.Node>, what: string, style: string | null = null): string {
    const parts: Array<string> = []
    let run: Array<Ast.Node> = []
    const flush = () => {
      if (run.length > 0) parts.push(mathText(plainText(run, what), style))
      run = []
    }
    for (const node of nodes) {
      if (node.type === "inlinemath") {
        flush()
        parts.push(this.list(node.content))
      } else run.push(node)
    }
    flush()
    return parts.length === 0 ? mathText("") : joinAtoms(parts.filter((p) => p !== ""))
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
      const align = name.endsWith("*") ? `align: ${matrixAlign(optionalText(node))}, ` : ""
      const { rows, hlines } = this.ruledRows(node.content)
      const mat = `mat(delim: ${matrix}, ${align}${augment([], hlines)}${this.cells(rows)})`
      return name === "smallmatrix" ? `inline(${mat})` : mat
    }
    if (name === "array" || name === "darray") return this.array(node)
    const cases = CASES[name]
    if (cases !== undefined) {
      const rows = this.rows(node.content).map((row) => {
        const cells = cases.display ? row.map((cell) => [{ type: "macro", content: "displaystyle" } as Ast.Node, ...cell]) : row
        return this.row(cells, CASES_SEPARATOR)
      })
      return `cases(${cases.reverse ? "reverse: #true, " : ""}${rows.join(", ")})`
    }
    if (ALIGNMENTS.has(name)) {
      if (this.mode !== "display") refuse(`the ${name} environment in an inline formula`)
      // alignat's column count is the first group of its content: Typst counts the `&`s itself.
      const content = name.startsWith("alignat") || name === "alignedat" ? dropFirstGroup(node.content) : node.content
      return this.aligned(content)
    }
    return refuse(`unsupported environment ${name}`)
  }

  /** `array`: a matrix without delimiters, its rules from the column specification and `\\hline`. */
  private array(node: Ast.Environment): string {
    const spec = (node.args ?? []).find((a) => a.openMark === "{")
    const { align, vlines } = arrayColumns(
      spec === undefined ? refuse("an array without a column specification") : plainText(spec.content, "an array's columns")
    )
    const { rows, hlines } = this.ruledRows(node.content)
    return `mat(delim: #none, align: ${align}, ${augment(vlines, hlines)}${this.cells(rows)})`
  }

  /** Rows of a matrix or array, with the rows a `\\hline` or `\\hdashline` is drawn above. */
  private ruledRows(content: ReadonlyArray<Ast.Node>): { rows: Array<Array<Array<Ast.Node>>>; hlines: Array<number> } {
    const hlines: Array<number> = []
    const rows = this.rows(content).map((row, r) => {
      const [first = [], ...rest] = row
      const kept = first.filter((n) => {
        const rule = n.type === "macro" && (n.content === "hline" || n.content === "hdashline")
        if (rule && !hlines.includes(r)) hlines.push(r)
        return !rule
      })
      return [kept, ...rest]
    })
    // A rule after the last row is a row of its own, with nothing else in it.
    const last = rows[rows.length - 1]!
    if (rows.length > 1 && last.length === 1 && last[0]!.every((n) => n.type === "whitespace")) rows.pop()
    return { rows, hlines }
  }

  private cells(rows: ReadonlyArray<ReadonlyArray<ReadonlyArray<Ast.Node>>>): string {
    return rows.map((row) => row.map((cell) => this.list(cell)).join(", ")).join("; ")
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
      if (node.type === "macro" && (node.content === "\\" || node.content === "cr" || node.content === "newline")) rows.push([[]])
      else if (node.type === "string" && node.content === "&") row.push([])
      else row[row.length - 1]!.push(node)
    }
    // LaTeX allows a `\\` after the last row.
    const lastRow = rows[rows.length - 1]!
    if (rows.length > 1 && lastRow.length === 1 && lastRow[0]!.every((n) => n.type === "whitespace")) rows.pop()
    return rows
  }
}

/** Words of text in a formula, set in the text face by the template library's `math-text` (typst-templates/lib/pressroom.typ). */
const mathText = (text: string, style: string | null = null): string =>
  `#pr.math-text(${typstString(text)}${style === null ? "" : `, ${style}`})`

/** plainText, or null when the nodes hold more than text. */
const plainTextOrNull = (nodes: ReadonlyArray<Ast.Node>): string | null => {
  try {
    return plainText(nodes, "")
  } catch (error) {
    if (error instanceof Refusal) return null
    throw error
  }
}

/** The `cases` family: `rcases` puts the brace on the right, `dcases` sets its cells in display style. */
const CASES: Readonly<Record<string, { readonly reverse: boolean; readonly display: boolean }>> = {
  cases: { reverse: false, display: false },
  dcases: { reverse: false, display: true },
  rcases: { reverse: true, display: false },
  drcases: { reverse: true, display: true }
}

/** A starred matrix's `[r]`, which the parser attaches as an optional argument; or null. */
const optionalText = (node: Ast.Environment): string | null => {
  const arg = (node.args ?? []).find((a) => a.openMark === "[")
  return arg === undefined ? null : plainText(arg.content, "a matrix's alignment")
}

const dropFirstGroup = (content: ReadonlyArray<Ast.Node>): ReadonlyArray<Ast.Node> => {
  const i = content.findIndex((n) => n.type !== "whitespace")
  return content[i]?.type === "group" ? content.slice(i + 1) : content
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
    const { tag, tagMath, notag, label, references } = emitter
    return { ok: true, value: { typst, tag, tagMath, notag, label, references } }
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.message }
    // The parser's own errors (a stray `\begin`, say) and a stack overflow are refusals too.
    if (error instanceof RangeError) return { ok: false, reason: "nested too deeply" }
    return { ok: false, reason: `cannot be parsed: ${(error as Error).message.split("\n")[0]}` }
  }
}
