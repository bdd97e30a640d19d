/**
 * What every compiler worker does, whichever compiler it holds and wherever it runs (a thread for
 * the WebAssembly compiler, render-worker.ts; a process for the native one, native-worker.ts):
 * warm up, then typeset whole documents (parsing and conversion too, under the same deadline as
 * the compile: in the worker's process, or in a thread of its own, converter.ts), answer each,
 * evict Typst's memo cache, and say it is idle with how much memory it holds, so that the pool
 * can replace a worker grown past its threshold.
 */
import type { Convert } from "./convert.ts"
import { typesetDocument, type TypesetJob } from "./typeset.ts"
import { CompileFailure, type CompileTask, type Loss } from "./engine.ts"
import { LARGE_SOURCE_CHARS, MEMO_MAX_AGE } from "./memo-eviction.ts"
import { describeTrap } from "./trap-report.ts"
import type { FontInfo } from "./wasm-compiler.ts"

export type RenderWorkerReply =
  | { readonly ready: true; readonly fontInfos?: ReadonlyArray<FontInfo> }
  | {
      readonly id: number
      readonly ok: true
      readonly pdf: Uint8Array
      readonly warnings: ReadonlyArray<{ code: string; message: string; line: number | null }>
      readonly assetSha256s: ReadonlyArray<string>
      /** Whether the worker sends an idle message next (not when it trapped). */
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
  /** After a job's reply, once Typst's memo cache is evicted: the worker may take the next job. */
  | { readonly idle: true; readonly memoryBytes: number }
  /** The worker could not start, and why (a worker process, whose output goes nowhere, says so before it exits). */
  | { readonly startFailed: string }
  /** A thread of the worker's own (its converter, converter.ts) died: the pool takes the worker for lost. */
  | { readonly lost: Loss }

/** Thrown by a conversion whose thread died (converter.ts): the loop reports `loss`, and the pool replaces the worker. */
export class ConverterLost extends Error {
  constructor(readonly loss: Loss) {
    super(loss.why)
  }
}

/** A compiler as the loop uses it. */
export interface CompileBackend {
  /** The PDF, or a CompileFailure ("rejected") for a document Typst refuses; anything else thrown is a trap. */
  readonly compile: (task: CompileTask) => Uint8Array
  /** Drops Typst's memo entries not used in the last `maxAge` documents (0: all). */
  readonly evict: (maxAge: number) => void
  /** What the pool compares with the recycle threshold (PRESSROOM_RENDER_WORKER_MEMORY_MB). */
  readonly memoryBytes: () => number
  /** Whether a thrown error means a font file failed to load (the service's fault). */
  readonly isFontUnavailable: (error: unknown) => boolean
}

/** The channel to the pool: a thread's parentPort or a child process's IPC. */
export interface WorkerPort {
  /** Sends `reply`; `sent` runs once it has left this worker (a process writes a large PDF in pieces). */
  readonly send: (reply: RenderWorkerReply, sent?: () => void) => void
  readonly onJob: (handle: (message: { readonly id: number; readonly job: TypesetJob }) => void) => void
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

/**
 * Warms the compiler up (`afterWarmUp` runs once a compile has filled Typst's caches), takes jobs
 * and says it is ready with `ready`.
 */
export const serveJobs = (
  port: WorkerPort,
  /** Markdown to Typst: in this thread (convertHere), or in a thread of the worker's own (converter.ts). */
  convert: Convert,
  backend: CompileBackend,
  { warmUp, afterWarmUp, ready }: { readonly warmUp: boolean; readonly afterWarmUp?: () => void; readonly ready: RenderWorkerReply }
): void => {
  /** The longest source compiled for the current job (an image check compiles small ones too). */
  let largestSource = 0
  const compile = (task: CompileTask): Uint8Array => {
    largestSource = Math.max(largestSource, task.main.length)
    return backend.compile(task)
  }
  // Without the warm-up, one trivial compile still fills comemo's statics (memo-eviction.ts's check).
  compile({ main: warmUp ? WARM_UP : "#[ ]", shadows: [] })
  largestSource = 0
  afterWarmUp?.()

  port.onJob(async (message) => {
    let reply: RenderWorkerReply
    try {
      const result = await typesetDocument(message.job, convert, compile)
      reply = { id: message.id, ok: true, ...result, evicts: true }
    } catch (error) {
      if (error instanceof ConverterLost) {
        // The pool replaces this worker: nothing more is sent.
        port.send({ lost: error.loss })
        return
      }
      if (error instanceof CompileFailure) {
        reply = { id: message.id, ok: false, failure: "rejected", errors: [...error.details], evicts: true }
      } else {
        // A trapped instance is about to be replaced: nothing to evict.
        const failure = backend.isFontUnavailable(error) ? "unavailable" : "trapped"
        reply = { id: message.id, ok: false, failure, errors: [describeTrap(error)], evicts: false }
      }
    }
    // Eviction runs after the caller has its answer and before the pool sends another job; should
    // it throw, the worker dies with no job of anyone's in it, and the pool replaces it. It waits
    // until the reply has left: a process's channel takes a PDF in pieces between turns of its
    // event loop, which a synchronous eviction would hold back (75 to 115 ms after a long report).
    port.send(reply, () => {
      if (!reply.evicts) return
      backend.evict(largestSource >= LARGE_SOURCE_CHARS ? 0 : MEMO_MAX_AGE)
      largestSource = 0
      port.send({ idle: true, memoryBytes: backend.memoryBytes() })
    })
  })
  port.send(ready)
}
