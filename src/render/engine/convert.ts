/**
 * Converting one document, Markdown → mdast → Typst, for the compiler (typeset.ts): in a
 * WebAssembly worker's converter thread (convert-worker.ts), in a native worker's own process.
 */
import { loadLatexParser, mayHoldMath } from "../math/latex-parser.ts"
import { refused, type TypesetJob } from "./engine.ts"
import { parseMarkdown } from "../markdown/parse.ts"
import { TooManyBlocks } from "../markdown/block-count.ts"
import { toTypst, type TypstBody } from "../markdown/to-typst.ts"
import type { RenderWarning } from "../common/warnings.ts"
import type { Nodes, Root } from "mdast"
import { toString as plainText } from "mdast-util-to-string"

/** The plain text of the document's first heading (a PDF's title when front matter gives none), or null. */
const firstHeading = (root: Root): string | null => {
  const stack: Array<Nodes> = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === "heading") {
      const text = plainText(node).replace(/\s+/g, " ").trim()
      if (text !== "") return text
    } else if ("children" in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as Nodes)
  }
  return null
}

const refuse = (error: unknown): never => {
  // The parser and the converter recurse per level of nesting; past what the stack holds the
  // document is refused like any other that cannot be typeset, as is one of more blocks than
  // MAX_BLOCKS (block-count.ts).
  if (error instanceof RangeError) throw refused("the document is nested too deeply")
  if (error instanceof TooManyBlocks) throw refused(error.message)
  throw error
}

/** What the compiler is given for one document: its settings (JSON) and its body, with the parser's warnings. */
export interface Converted {
  readonly settings: string
  readonly body: TypstBody
  readonly warnings: ReadonlyArray<RenderWarning>
}

/**
 * The document parsed and converted. Its tree is dropped when this returns, before Typst compiles:
 * a large document's tree (tens of MiB) would otherwise stay live through the compile.
 */
const convertDocument = (job: TypesetJob, undecodableImages?: ReadonlySet<string>): Converted => {
  try {
    const parsed = parseMarkdown(job.markdown)
    const settings = JSON.stringify({
      templateId: job.templateId,
      meta: parsed.frontMatter,
      options: job.options,
      locale: job.locale,
      headingTitle: firstHeading(parsed.root)
    })
    return { settings, body: toTypst(parsed.root, { undecodableImages }), warnings: parsed.warnings }
  } catch (error) {
    return refuse(error)
  }
}

/** Converts a document; `undecodableImages` (SHA-256s) are shown as their alt text. */
export type Convert = (job: TypesetJob, undecodableImages?: ReadonlySet<string>) => Promise<Converted>

/** Converts in this thread, the LaTeX parser loaded first when the document may hold math. */
export const convertHere: Convert = async (job, undecodableImages) => {
  if (mayHoldMath(job.markdown)) await loadLatexParser()
  return convertDocument(job, undecodableImages)
}
