/**
 * The WebAssembly engine's compiler worker: one typst.ts WASM compiler (wasm-compiler.ts) in a
 * worker thread, serving jobs as every worker does (worker-loop.ts), with a thread of its own that
 * converts the documents (converter.ts). Under Node the pool starts this file's build
 * (dist/render-worker.js, see render-worker-url.ts), so no TypeScript loader is needed in
 * workers; Deno starts it as it is.
 */
import { parentPort, workerData } from "node:worker_threads"
import { FontUnavailable, keepCompilerConsole } from "./trap-report.ts"
import { startConverter } from "./converter.ts"
import { type CompilerSetup, startCompiler } from "./wasm-compiler.ts"
import { serveJobs } from "./worker-loop.ts"

export type RenderWorkerData = CompilerSetup & {
  readonly warmUp: boolean
  /** Where the converter thread's code is (render-worker-url.ts), and its heap in MiB (PRESSROOM_RENDER_WORKER_HEAP_MB). */
  readonly converterUrl: string
  readonly converterHeapMiB: number
}

const data = workerData as RenderWorkerData
const port = parentPort!
keepCompilerConsole()
const compiler = await startCompiler(data)
const convert = await startConverter(data.converterUrl, data.converterHeapMiB)

serveJobs(
  {
    // The PDF's memory moves to the pool rather than being copied.
    send: (reply, sent) => {
      port.postMessage(reply, "pdf" in reply ? [reply.pdf.buffer as ArrayBuffer] : [])
      sent?.()
    },
    onJob: (handle) => port.on("message", handle)
  },
  convert,
  {
    compile: compiler.compile,
    // Without a memo layout for this binary nothing is evicted (wasm-pool.ts warns once).
    evict: (maxAge) => compiler.memo?.evict(maxAge),
    memoryBytes: compiler.memoryBytes,
    isFontUnavailable: (error) => error instanceof FontUnavailable
  },
  {
    warmUp: data.warmUp,
    // Fails the worker's start, and so the pool's, if the memo layout does not fit this binary.
    afterWarmUp: () => compiler.memo?.check(),
    ready: { ready: true, fontInfos: data.fontInfos ? undefined : compiler.fontInfos }
  }
)
