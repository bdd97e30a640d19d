/**
 * Typesetting one document: Markdown → mdast → Typst → PDF, given a conversion and a synchronous
 * compile function. It runs inside a compiler worker, so the render deadline covers parsing too
 * and a pathological document stalls only that worker. The native worker converts in its own
 * process; the WebAssembly worker in a thread of its own (converter.ts says why).
 */
import { loadLatexParser, mayHoldMath } from "../math/latex-parser.ts"
import { CompileFailure, type CompileTask, type TypesetJob, type TypesetResult } from "./engine.ts"
import type { EmbeddedImage } from "../markdown/images.ts"
import { parseMarkdown } from "../markdown/parse.ts"
import { toTypst, type TypstBody } from "../markdown/to-typst.ts"
import { typstString } from "../math/typst-literal.ts"
import type { RenderWarning } from "../common/warnings.ts"
import type { Nodes, Root } from "mdast"
import { toString as plainText } from "mdast-util-to-string"

export type { TypesetJob, TypesetResult }

/** Compiles a task to PDF bytes, or throws a CompileFailure. */
export type Compile = (task: CompileTask) => Uint8Array

/**
 * The generated /main.typ. The document's settings reach the template as JSON in a string literal
 * (data, never code). They are not passed as `sys.inputs`: distinct inputs make a distinct
 * standard library, so Typst could reuse nothing it memoised for earlier documents: the template
 * modules were evaluated again for each document (docs/renderer.md, "Typst's memo cache is evicted").
 */
export const mainSource = (templateId: string, settings: string, markup: string): string =>
  [
    `#import "/lib/pressroom.typ" as pr`,
    `#import "/templates/${templateId}.typ": template`,
    `#let cfg = json(bytes(${typstString(settings)}))`,
    // No creation date: the same input must give the same bytes.
    // Without a front-matter title, the first heading names the PDF (its metadata only: the page shows what the template shows).
    `#set document(title: if pr.meta(cfg, "title") != none { pr.meta(cfg, "title") } else { cfg.headingTitle }, author: pr.meta-list(cfg, "author"), keywords: pr.meta-list(cfg, "keywords"), date: none)`,
    `#show: template.with(cfg)`,
    markup,
    ""
  ].join("\n")

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

const tooDeep = (error: unknown): never => {
  // The parser and the converter recurse per level of nesting; past what the stack holds the
  // document is refused like any other that cannot be typeset.
  if (error instanceof RangeError) throw new CompileFailure("rejected", ["the document is nested too deeply"])
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
    return tooDeep(error)
  }
}

/** Converts a document; `undecodableImages` (SHA-256s) are shown as their alt text. */
export type Convert = (job: TypesetJob, undecodableImages?: ReadonlySet<string>) => Promise<Converted>

/** Converts in this thread, the LaTeX parser loaded first when the document may hold math. */
export const convertHere: Convert = async (job, undecodableImages) => {
  if (mayHoldMath(job.markdown)) await loadLatexParser()
  return convertDocument(job, undecodableImages)
}

export const typesetDocument = async (job: TypesetJob, convert: Convert, compile: Compile): Promise<TypesetResult> => {
  const compileDocument = ({ settings, body, warnings }: Converted): TypesetResult => ({
    pdf: compile({
      main: mainSource(job.templateId, settings, body.markup),
      shadows: body.images.map((image) => ({ path: image.path, bytes: image.bytes }))
    }),
    warnings: [...warnings, ...body.warnings],
    assetSha256s: body.images.map((image) => image.sha256)
  })

  const converted = await convert(job)
  try {
    return compileDocument(converted)
  } catch (error) {
    // An image whose header looked right but whose data is damaged makes Typst reject the whole
    // document: find such images, let their alt text stand in, and compile once more (the
    // document parsed again: its tree was not kept).
    if (!(error instanceof CompileFailure) || error.reason !== "rejected") throw error
    const undecodable = undecodableImages(converted.body.images, compile)
    if (undecodable.size === 0) throw error
    return compileDocument(await convert(job, undecodable))
  }
}

const undecodableImages = (images: ReadonlyArray<EmbeddedImage>, compile: Compile): ReadonlySet<string> => {
  const rejected = new Set<string>()
  for (const image of images) {
    try {
      compile({ main: `#image(${typstString(image.path)})`, shadows: [{ path: image.path, bytes: image.bytes }] })
    } catch (error) {
      // Only Typst's verdict on the image counts; a trap must reach the pool, which replaces us.
      if (!(error instanceof CompileFailure)) throw error
      rejected.add(image.sha256)
    }
  }
  return rejected
}
