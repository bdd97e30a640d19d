/**
 * A render worker: one Typst compiler (wasm-compiler.ts) in a worker thread, typesetting whole
 * documents: parsing and conversion run here too, under the same deadline as the compile. Under
 * Node the pool starts this file's build (dist/render-worker.js, see render-worker-url.ts), so no
 * TypeScript loader is needed in workers; Deno starts it as it is.
 */
import { parentPort, workerData } from "node:worker_threads"
import { loadLatexParser, mayHoldMath } from "../math/latex-parser.ts"
import { typesetDocument, type TypesetJob } from "../typeset.ts"
import { CompileFailure, type CompileTask } from "./engine.ts"
import { LARGE_SOURCE_CHARS, MEMO_MAX_AGE } from "./memo-eviction.ts"
import { describeTrap, keepCompilerConsole } from "./trap-report.ts"
import { type CompilerSetup, type FontInfo, FontUnavailable, startCompiler } from "./wasm-compiler.ts"

export type RenderWorkerData = CompilerSetup & { readonly warmUp: boolean }

export type RenderWorkerReply =
  | { readonly ready: true; readonly fontInfos?: ReadonlyArray<FontInfo> }
  | {
      readonly id: number
      readonly ok: true
      readonly pdf: Uint8Array
      readonly warnings: ReadonlyArray<{ code: string; message: string; line: number | null }>
      readonly assetSha256s: ReadonlyArray<string>
      /**
       * Whether the worker sends an idle message next (not when it trapped), once it has evicted
       * Typst's memo cache (unless the binary has no memo layout).
       */
      readonly evicts: boolean
    }
  | {
      readonly id: number
      readonly ok: false
      /**
       * `rejected`: Typst refused the document (its diagnostics follow). `trapped`: the compiler
       * trapped, or the pipeline threw, on it. `unavailable`: a font file failed to load.
       */
      readonly failure: "rejected" | "trapped" | "unavailable"
      readonly errors: ReadonlyArray<string>
      readonly evicts: boolean
    }
  /** After a job's reply, once Typst's memo cache is evicted (if it is): the worker may take the next job. */
  | { readonly idle: true; readonly memoryBytes: number }

const data = workerData as RenderWorkerData
const port = parentPort!
keepCompilerConsole()
const compiler = await startCompiler(data)

/** The longest source compiled for the current job (an image check compiles small ones too). */
let largestSource = 0
const compile = (task: CompileTask): Uint8Array => {
  largestSource = Math.max(largestSource, task.main.length)
  return compiler.compile(task)
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
// Without the warm-up, one trivial compile still fills comemo's statics for the check below.
compile({ main: data.warmUp ? WARM_UP : "#[ ]", shadows: [] })
largestSource = 0
// Fails the worker's start, and so the pool's, if the memo layout does not fit this binary.
compiler.memo?.check()

port.on("message", async (message: { readonly id: number; readonly job: TypesetJob }) => {
  let reply: RenderWorkerReply
  try {
    if (mayHoldMath(message.job.markdown)) await loadLatexParser()
    const result = typesetDocument(message.job, compile)
    reply = { id: message.id, ok: true, ...result, evicts: true }
  } catch (error) {
    if (error instanceof CompileFailure) {
      reply = { id: message.id, ok: false, failure: "rejected", errors: [...error.details], evicts: true }
    } else {
      // A trapped instance is about to be replaced: nothing to evict.
      const failure = error instanceof FontUnavailable ? "unavailable" : "trapped"
      reply = { id: message.id, ok: false, failure, errors: [describeTrap(error)], evicts: false }
    }
  }
  port.postMessage(reply, reply.ok ? [reply.pdf.buffer as ArrayBuffer] : [])
  // Eviction runs after the caller has its answer and before the pool sends another job; should
  // it throw, the worker dies with no job of anyone's in it, and the pool replaces it.
  if (!reply.evicts) return
  compiler.memo?.evict(largestSource >= LARGE_SOURCE_CHARS ? 0 : MEMO_MAX_AGE)
  largestSource = 0
  port.postMessage({ idle: true, memoryBytes: compiler.memoryBytes() } satisfies RenderWorkerReply)
})
port.postMessage({ ready: true, fontInfos: data.fontInfos ? undefined : compiler.fontInfos } satisfies RenderWorkerReply)
