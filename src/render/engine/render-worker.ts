/**
 * One Typst compiler (typst.ts WASM) in a worker thread, typesetting whole documents: parsing and
 * conversion run here too, under the same deadline as the compile. The pool starts this file from
 * an esbuild bundle (worker-bundle.ts), so no TypeScript loader is needed in workers.
 *
 * The compiler gets the dummy access model: it can read nothing but the sources and shadow files
 * we hand it (the template bundle, the generated main file, decoded images), and it has no package
 * registry, so `@preview` imports and file reads outside the bundle fail inside Typst.
 */
import * as typst from "@myriaddreamin/typst-ts-web-compiler"
import { parentPort, workerData } from "node:worker_threads"
import { type FontFile, readFontFile } from "../fonts/font-file.ts"
import { typesetDocument, type TypesetJob } from "../typeset.ts"
import type { BundleFile } from "./bundle.ts"
import { CompileFailure, type CompileTask } from "./engine.ts"

/** Typst's description of the faces in one font file (typst.ts `get_font_info`), coverage included. */
export interface FontInfo {
  readonly info: ReadonlyArray<{ readonly coverage: ReadonlyArray<number> }>
}

export interface RenderWorkerData {
  readonly module: WebAssembly.Module
  readonly fonts: ReadonlyArray<FontFile>
  /** The fonts' descriptions, once the pool's first worker has computed them (in `fonts` order). */
  readonly fontInfos: ReadonlyArray<FontInfo> | undefined
  readonly bundle: ReadonlyArray<BundleFile>
}

export type RenderWorkerReply =
  | { readonly ready: true; readonly fontInfos?: ReadonlyArray<FontInfo> }
  | {
    readonly id: number
    readonly ok: true
    readonly pdf: Uint8Array
    readonly warnings: ReadonlyArray<{ code: string; message: string; line: number | null }>
    readonly assetSha256s: ReadonlyArray<string>
    readonly memoryBytes: number
  }
  | { readonly id: number; readonly ok: false; readonly trapped: boolean; readonly errors: ReadonlyArray<string>; readonly memoryBytes: number }

const data = workerData as RenderWorkerData
const port = parentPort!

// The module is compiled once by the pool and shared: no worker compiles the 28 MB binary again.
const wasm = typst.initSync({ module: data.module })

/**
 * Free space kept inside the compiler's allocator so that a render seldom grows the WebAssembly
 * memory. Each growth makes V8 attach a new ArrayBuffer over the whole memory and count all of it
 * as newly allocated external memory (hundreds of MiB in a worker that has rendered a while), which
 * starts a full collection; a full collection discards the optimised code of the Markdown parser,
 * whose closures are created per document, and the next render runs unoptimised while TurboFan
 * compiles it again on background threads. Growing in steps of this size keeps that to one
 * collection per few hundred renders. The space is allocated and freed at once: the allocator
 * (dlmalloc, which cannot return memory to WebAssembly) keeps it as free space. It costs about
 * 35 MiB of RSS per worker (README, "Each worker keeps free space"), less than a worker loses in
 * speed without it.
 */
const HEADROOM_BYTES = 32 * 1024 * 1024
const allocator = wasm as unknown as {
  /** wasm-bindgen's malloc(size, align) and free(ptr, size, align) of the module's allocator. */
  readonly __wbindgen_export: (size: number, align: number) => number
  readonly __wbindgen_export4: (ptr: number, size: number, align: number) => void
}
const memoryBytes = () => wasm.memory.buffer.byteLength
let reservedAt = 0
const keepHeadroom = () => {
  if (memoryBytes() === reservedAt) return
  allocator.__wbindgen_export4(allocator.__wbindgen_export(HEADROOM_BYTES, 8), HEADROOM_BYTES, 8)
  reservedAt = memoryBytes()
}
keepHeadroom()

// Fonts load lazily, from disk: Typst asks for a file's bytes the first time a document uses it,
// so a Latin document never brings the CJK faces into this worker's memory, and no copy of the set
// is kept anywhere else. Describing a font means parsing all of it, so only the pool's first worker
// does that; workers that replace it start from its descriptions.
const resolver = new typst.TypstFontResolverBuilder()
const builder = new typst.TypstCompilerBuilder()
builder.set_dummy_access_model()
const fontInfos = data.fontInfos ?? data.fonts.map((font) => resolver.get_font_info(readFontFile(font)) as FontInfo)
/** Why a face could not be loaded: the render that needed it fails, and this worker is replaced. */
let fontProblem: string | undefined
for (const [index, font] of data.fonts.entries()) {
  await builder.add_lazy_font(fontInfos[index], () => {
    try {
      return readFontFile(font)
    } catch (error) {
      fontProblem = (error as Error).message
      throw error
    }
  })
}
const compiler = await builder.build()
for (const file of data.bundle) compiler.add_source(file.path, file.text)

/** Typst reports a document it cannot typeset as a string of diagnostics: keep their messages. */
const messagesOf = (diagnostics: unknown): Array<string> =>
  [...String(diagnostics).matchAll(/message: "((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? "").replace(/\\(.)/g, "$1"))

/** A trap (RuntimeError, failed memory.grow) leaves the instance unusable: the pool replaces us. */
class Trapped extends Error {}

const compile = (task: CompileTask): Uint8Array => {
  for (const shadow of task.shadows) compiler.map_shadow(shadow.path, shadow.bytes)
  compiler.add_source("/main.typ", task.main)
  let pdf: Uint8Array
  try {
    pdf = (compiler.compile("/main.typ", undefined, "pdf", 1) as { result: Uint8Array }).result
  } catch (error) {
    // After a trap nothing more may be asked of the instance.
    if (fontProblem) throw new Trapped(fontProblem)
    if (error instanceof Error) throw new Trapped(`${error.name}: ${error.message}`)
    cleanUp(task)
    throw new CompileFailure("rejected", messagesOf(error))
  }
  // Typst takes a face that fails to load for a missing one and typesets on without it.
  if (fontProblem) throw new Trapped(fontProblem)
  cleanUp(task)
  return pdf
}

const cleanUp = (task: CompileTask): void => {
  for (const shadow of task.shadows) compiler.unmap_shadow(shadow.path)
  // Evicts typst.ts's file cache (earlier main files, images) that recent compiles did not use.
  // Typst's own memo cache is never evicted in this build: the pool replaces a worker whose
  // memory has grown past its threshold (README, "Why workers are replaced").
  compiler.reset()
}

// The first use of a face, of syntax highlighting or of table layout costs hundreds of
// milliseconds; pay it here, before the worker reports ready, instead of in a user's render.
const WARM_UP = `#for family in ("Inter", "IBM Plex Sans", "Source Serif 4", "EB Garamond") [
  #set text(font: family)
  = Heading #emph[italic] #strong[bold]
  Body text with a footnote#footnote[note] and #link("https://example.com")[a link].
  #list[one][two] #enum[one][two]
  #table(columns: 2, table.header([a], [b]), [1], [2])
  #quote(block: true)[quote]
]
#raw(block: true, lang: "js", "const warm = (up) => up * 2 // code")
#raw("inline")`
compile({ main: WARM_UP, shadows: [] })
keepHeadroom()

port.on("message", (message: { readonly id: number; readonly job: TypesetJob }) => {
  let reply: RenderWorkerReply
  try {
    const result = typesetDocument(message.job, compile)
    reply = { id: message.id, ok: true, ...result, memoryBytes: memoryBytes() }
  } catch (error) {
    const trapped = error instanceof Trapped || !(error instanceof CompileFailure)
    const errors = error instanceof CompileFailure ? [...error.details] : [error instanceof Trapped ? error.message : String(error)]
    reply = { id: message.id, ok: false, trapped, errors, memoryBytes: memoryBytes() }
  }
  port.postMessage(reply, reply.ok ? [reply.pdf.buffer as ArrayBuffer] : [])
  // After the reply, off the caller's time; a trapped instance is about to be replaced.
  if (reply.ok || !reply.trapped) keepHeadroom()
})
port.postMessage({ ready: true, fontInfos: data.fontInfos ? undefined : fontInfos } satisfies RenderWorkerReply)
