/** A compiler worker in a worker thread: the WebAssembly engine's (worker-host.ts), and the threads such a worker starts. */
import { Worker } from "node:worker_threads"
import type { Loss } from "./engine.ts"
import { onceLost, type StartHost } from "./worker-host.ts"

/**
 * A worker's young generation. Uncapped, V8 lets it grow to tens of MiB under the Markdown
 * parser's allocation rate, and each worker keeps that much resident; capped at 8 MiB, two workers
 * rendering letters held about 100 MiB less at a throughput within noise (docs/performance.md, "Memory").
 */
export const YOUNG_GENERATION_MIB = 8

/** A worker's 'error' event as a Loss: the error's code or kind, never its message (a stack could quote anything). */
const lossOf = (error: Error & { code?: string }): Loss => ({
  outOfMemory: error.code === "ERR_WORKER_OUT_OF_MEMORY",
  why: `worker error: ${error.code ?? error.name}`
})

/**
 * A thread running `url` in a heap of `heapMiB`: the pool's workers, and each WebAssembly worker's
 * converter (converter.ts). `lost` is called once, when the thread fails or exits.
 */
export const startThread = <Message>(
  url: URL,
  heapMiB: number,
  events: { readonly message: (message: Message) => void; readonly lost: (loss: Loss) => void },
  workerData?: unknown
): Worker => {
  const lost = onceLost(events.lost)
  return new Worker(url, {
    workerData,
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MIB, maxOldGenerationSizeMb: heapMiB },
    // The worker is plain JavaScript (the build's, or TypeScript that Deno runs itself): it needs
    // none of the parent's command-line options. Inherited, a loader the parent was started with
    // (tsx, a test runner's) would be set up again in every new worker: a second on each start.
    execArgv: []
  })
    .on("message", events.message)
    .on("error", (error) => lost(lossOf(error)))
    .on("exit", (code) => lost({ outOfMemory: false, why: `worker exited with code ${code}` }))
}

/** Ends a thread at once, wherever it is; no event follows. */
export const endThread = async (worker: Worker): Promise<void> => {
  worker.removeAllListeners()
  worker.on("error", () => {})
  await worker.terminate()
}

export const threadHost =
  (url: URL, workerData: () => unknown, heapMiB: number): StartHost =>
  (events) => {
    const worker = startThread(url, heapMiB, events, workerData())
    return {
      post: (message) => worker.postMessage(message),
      busy: () => worker.ref(),
      idle: () => worker.unref(),
      terminate: () => endThread(worker)
    }
  }
