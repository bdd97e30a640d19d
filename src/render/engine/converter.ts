/**
 * Where a WebAssembly worker converts Markdown to Typst: in a thread of its own (convert-worker.ts)
 * under the worker heap bound (PRESSROOM_RENDER_WORKER_HEAP_MB), while the compiler's thread has a
 * heap sized to the compiler's memory bound instead (wasm-pool.ts, compilerHeapMiB).
 *
 * Why two heaps: Node 20's V8 counts a WebAssembly memory as external memory, and each time the
 * memory grows the old buffer's bytes stay counted until a collection. Past half the old
 * generation's limit it collects the whole heap at every growth: in a 256 MiB heap, a compile
 * whose memory passed 128 MiB grew by 64 KiB steps, each with a full collection (15,000 in one
 * bench:hostile run of unmatched backticks, 20.6 s a render; docs/performance.md, "Two heaps").
 * The heap bound is what holds a hostile parse, so it stays on the parse; the compile is held by
 * the compiler memory bound (PRESSROOM_RENDER_COMPILER_MEMORY_MB).
 *
 * The converter ends with its worker (a thread's threads end with it). Should it die first (a
 * document that exhausts its heap), `lost` reports it at once, and the pool replaces the worker.
 */
import { Worker } from "node:worker_threads"
import type { ConvertReply, ConvertRequest } from "./convert-worker.ts"
import { CompileFailure, type Loss } from "./engine.ts"
import { workerUrl } from "./render-worker-url.ts"
import { lossOf, YOUNG_GENERATION_MIB } from "./thread-host.ts"
import { Trapped } from "./trap-report.ts"
import type { Convert, Converted } from "./typeset.ts"

/**
 * A converter whose heap has grown past this with a document is replaced once it has answered:
 * the document's tree is garbage by then, but an idle thread's heap stays as it is until its next
 * collection. Kept, one worker held 150 to 200 MiB more between renders after the emphasis run or
 * 100 lines of nested block quotes (test/fixtures/pathological.ts); replaced, none.
 */
const REPLACE_ABOVE_BYTES = 64 * 1024 * 1024

interface Waiting {
  readonly id: number
  readonly resolve: (converted: Converted) => void
  readonly reject: (error: unknown) => void
}

export const startConverter = (heapMiB: number, lost: (loss: Loss) => void): Convert => {
  let waiting: Waiting | undefined
  let nextId = 1
  let gone: Loss | undefined
  const lose = (loss: Loss): void => {
    if (gone) return
    gone = { outOfMemory: loss.outOfMemory, why: `converter ${loss.why}` }
    lost(gone)
  }
  const onReply = (reply: ConvertReply): void => {
    const current = waiting
    if (current?.id !== reply.id) return
    waiting = undefined
    if ("converted" in reply) current.resolve(reply.converted)
    else if ("rejected" in reply) current.reject(new CompileFailure("rejected", reply.rejected))
    else current.reject(new Trapped(reply.trapped))
    if (reply.heapBytes > REPLACE_ABOVE_BYTES) replace()
  }
  const spawn = (): Worker =>
    new Worker(workerUrl("convert-worker"), {
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MIB, maxOldGenerationSizeMb: heapMiB },
      execArgv: []
    })
      .on("error", (error) => lose(lossOf(error)))
      .on("exit", (code) => lose({ outOfMemory: false, why: `exited with code ${code}` }))
      .on("message", onReply)
  let worker = spawn()
  const replace = (): void => {
    const old = worker
    old.removeAllListeners()
    old.on("error", () => {})
    void old.terminate()
    worker = spawn()
  }

  return (job, undecodableImages) =>
    new Promise((resolve, reject) => {
      // The pool is replacing this worker already.
      if (gone) return reject(new Trapped(gone.why))
      const id = nextId++
      waiting = { id, resolve, reject }
      worker.postMessage({ id, job, undecodableImages: [...(undecodableImages ?? [])] } satisfies ConvertRequest)
    })
}
