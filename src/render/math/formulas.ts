/**
 * The formulas of one document, for the Markdown converter (to-typst.ts): each LaTeX formula
 * converted to Typst math (latex-to-typst.ts), display formulas numbered as the template and their
 * `\tag`, `\notag` and `\label` say, and references (`\eqref{…}`, `\ref{…}`, in a formula or in
 * prose) resolved to labels generated here. A user's label key never reaches Typst: a formula's
 * label is `pressroom-eq-<n>`, and a reference names that. Display formulas are converted before
 * anything else, so that a reference may come before the formula it names.
 *
 * Numbering: a template that numbers display formulas sets `math.equation`'s numbering; a formula
 * without a word of its own takes it. `\notag` turns it off, `\tag{x}` shows `(x)` without taking
 * a number from the sequence, and a `\label`led formula is numbered in every template, so that
 * what refers to it has a number to show (LaTeX's `equation` beside `equation*`).
 */
import type { Code, Nodes, Root } from "mdast"
import type { RenderWarning } from "../common/warnings.ts"
import { typstString } from "./typst-literal.ts"
import { latexToTypst, type MathConversion, REF_PLACEHOLDER } from "./latex-to-typst.ts"

/** A display formula: a `$$…$$` block (`math`), `$$…$$` within a paragraph (a displayed `inlineMath`) or a fenced ```` ```math ```` block. */
type DisplayNode = Extract<Nodes, { type: "math" | "inlineMath" }> | Code

/** `\eqref{key}` or `\ref{key}` in prose. */
const PROSE_REFERENCE = /\\(eq)?ref\{([^{}\n]{1,100})\}/g

interface Numbered {
  readonly conversion: MathConversion
  /** The label generated for its `\label`, if it has one that can be referred to. */
  readonly label: string | null
}

export class Formulas {
  private readonly display = new Map<DisplayNode, Numbered | { readonly failure: string }>()
  /** User label keys to generated labels. */
  private readonly labels = new Map<string, string>()
  private readonly warnings: Array<RenderWarning> = []

  constructor(root: Root) {
    for (const node of displayNodes(root)) {
      const converted = latexToTypst(node.value, "display")
      if (!converted.ok) {
        this.display.set(node, { failure: converted.reason })
        continue
      }
      const { label: key, notag } = converted.value
      let label: string | null = null
      if (key !== null) {
        if (this.labels.has(key))
          this.warn("math_label_duplicate", `the label ${key} is used by an earlier formula; this one keeps no label`, node)
        else if (notag) this.warn("math_label_unnumbered", `the formula labelled ${key} is \\notag: it has no number to refer to`, node)
        else {
          label = `pressroom-eq-${this.labels.size + 1}`
          this.labels.set(key, label)
        }
      }
      this.display.set(node, { conversion: converted.value, label })
    }
  }

  /** Warnings of the whole document's formulas, once every formula and prose text has been converted. */
  collectedWarnings(): ReadonlyArray<RenderWarning> {
    return this.warnings
  }

  /** An inline formula's markup: Typst math, or its source in a code span with a warning. */
  inline(node: Extract<Nodes, { type: "inlineMath" }>): string {
    const converted = latexToTypst(node.value, "inline")
    if (!converted.ok) return this.unsupported(node, converted.reason)
    return `$${this.withReferences(converted.value, node)}$`
  }

  /** A display formula's markup, numbered and labelled; or its source in a code block with a warning. */
  block(node: DisplayNode): string {
    const entry = this.display.get(node)
    if (entry === undefined || "failure" in entry) return this.unsupported(node, entry?.failure ?? "not converted", true)
    const { conversion, label } = entry
    const tagged = conversion.tag !== null || conversion.tagMath !== null
    const numbering = conversion.notag
      ? "none"
      : conversion.tag !== null
        ? `_ => ${typstString(`(${conversion.tag})`)}`
        : conversion.tagMath !== null
          ? `_ => [(#$${conversion.tagMath}$)]`
          : label !== null
            ? `"(1)"`
            : null
    const equation = `#math.equation(block: true, ${numbering === null ? "" : `numbering: ${numbering}, `}$ ${this.withReferences(conversion, node)} $)`
    // A tag shows its own text and takes no number from the sequence the others count.
    const untagged = tagged && !conversion.notag ? "#counter(math.equation).update(n => n - 1)" : ""
    return `${equation}${label === null ? "" : ` <${label}>`}${untagged}`
  }

  /**
   * Prose with its `\eqref{…}` and `\ref{…}` resolved: `markup` turns each piece of plain text
   * into the converter's markup, and a reference becomes the formula's number.
   */
  prose(text: string, node: Nodes, markup: (text: string) => string): string {
    let out = ""
    let last = 0
    for (const match of text.matchAll(PROSE_REFERENCE)) {
      out += markup(text.slice(last, match.index))
      out += this.reference(match[2]!, match[1] !== undefined, node)
      last = match.index + match[0].length
    }
    return out + markup(text.slice(last))
  }

  private withReferences(conversion: MathConversion, node: Nodes): string {
    let typst = conversion.typst
    for (const [i, { key, eqref }] of conversion.references.entries()) {
      typst = typst.replace(REF_PLACEHOLDER(i), this.reference(key, eqref, node))
    }
    return typst
  }

  /** A formula's number, `(3)` or `3`; `??` with a warning for a key no formula has. */
  private reference(key: string, parens: boolean, node: Nodes): string {
    const label = this.labels.get(key)
    if (label === undefined) {
      this.warn("math_reference_unknown", `no formula has the label ${key}`, node)
      return `#"??"`
    }
    return `#pr.equation-ref(<${label}>, parens: ${parens})`
  }

  private unsupported(node: Nodes & { value: string }, reason: string, block = false): string {
    this.warn("math_unsupported", `a formula could not be typeset (${reason}); its source is shown`, node)
    return `#raw(${block ? "block: true, " : ""}${typstString(node.value)})`
  }

  private warn(code: string, message: string, node: Nodes): void {
    this.warnings.push({ code, message, line: node.position?.start.line ?? null })
  }
}

/** Display formulas in document order, walked with an explicit stack (documents nest 10,000 deep). */
const displayNodes = (root: Root): Array<DisplayNode> => {
  const found: Array<DisplayNode> = []
  const stack: Array<Nodes> = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (
      node.type === "math" ||
      (node.type === "code" && node.lang === "math") ||
      (node.type === "inlineMath" && node.data?.display === true)
    ) {
      found.push(node)
    }
    if ("children" in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as Nodes)
  }
  return found
}
