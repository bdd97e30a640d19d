/**
 * The LaTeX parser (`@unified-latex/unified-latex-util-parse`), loaded when a document may hold a
 * formula rather than when a render worker starts: its grammar takes more JavaScript heap than the
 * smallest worker heap allows (PRESSROOM_RENDER_WORKER_HEAP_MB=16: a worker that loaded it at start
 * could not start), and most documents hold none. Whoever typesets awaits `loadLatexParser` first
 * when `mayHoldMath` says so (`convertHere` in engine/convert.ts, for both engines); the build
 * puts the parser in a chunk of its own.
 */
import type * as Ast from "@unified-latex/unified-latex-types"

let parseMath: ((latex: string) => Array<Ast.Node>) | undefined

export const loadLatexParser = async (): Promise<void> => {
  parseMath ??= (await import("@unified-latex/unified-latex-util-parse")).parseMath
}

/** Whether Markdown may hold a formula: a dollar sign, or a fence that may open a math block. */
export const mayHoldMath = (markdown: string): boolean => markdown.includes("$") || /^[ \t]*(`{3,}|~{3,})[ \t]*math/m.test(markdown)

/** The formula's tree. Throws when the parser was not loaded: a caller that skipped `loadLatexParser`. */
export const parseLatex = (latex: string): Array<Ast.Node> => {
  if (parseMath === undefined) throw new Error("the LaTeX parser is not loaded: await loadLatexParser() before typesetting")
  return parseMath(latex)
}
