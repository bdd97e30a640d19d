/**
 * Typesetting one document: Markdown → Typst (convert.ts) → PDF, given the conversion and a
 * synchronous compile function. It runs inside a compiler worker, so the render deadline covers
 * parsing too and a pathological document stalls only that worker. The native worker converts in
 * its own process; the WebAssembly worker in a thread of its own (converter.ts says why), so its
 * compiler's thread never loads the parser.
 */
import type { Convert, Converted } from "./convert.ts"
import { CompileFailure, type CompileTask, type TypesetJob, type TypesetResult } from "./engine.ts"
import type { EmbeddedImage } from "../markdown/images.ts"
import { typstString } from "../math/typst-literal.ts"

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
