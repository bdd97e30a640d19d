/**
 * Where a WebAssembly worker converts Markdown to Typst: in a thread of its own (convert-worker.ts)
 * under the worker heap bound (PRESSROOM_RENDER_WORKER_HEAP_MB), while the compiler's thread has a
 * heap sized to the compiler's memory bound instead (`compilerHeapMiB` in wasm-pool.ts).
 *
 * Why two heaps: Node 20's V8 counts a WebAssembly memory as external memory, and each time the
 * memory grows, the old buffer's bytes stay counted beside the new one's until a collection
 * releases them. In a 256 MiB heap, a compile whose memory passed 128 MiB (half the heap) grew by
 * 64 KiB steps, each with a full collection (15,000 in one bench:hostile run of unmatched
 * backticks, 20.6 s a render; with the compiler's heap at twice its memory bound, none:
 * docs/performance.md, "Two heaps"). The heap bound is what holds a hostile parse, so it stays on
 * the parse; the compile is held by the compiler memory bound (PRESSROOM_RENDER_COMPILER_MEMORY_MB).
 *
 * The converter ends with its worker (a thread's threads end with it). Should it die first (a
 * document that exhausts its heap), the conversion that needed it throws ConverterLost, and the
 * worker reports the loss to the pool, which replaces it.
 */
import type { Convert, Converted } from "./convert.ts"
import type { ConvertReply, ConvertRequest } from "./convert-worker.ts"
import { CompileFailure, type Loss } from "./engine.ts"
import { endThread, startThread } from "./thread-host.ts"
import { Trapped } from "./trap-report.ts"
import { ConverterLost } from "./worker-loop.ts"

/**
 * A converter whose heap has grown past this with a document is replaced once it has answered:
 * the document's tree is garbage by then, but an idle thread's heap stays as it is until its next
 * collection. Kept, one worker held 150 to 200 MiB more between renders after the emphasis run or
 * 100 lines of nested block quotes (test/fixtures/pathological.ts); replaced, none. The 150-section
 * report of bench/documents.ts leaves the converter's heap at 58 MiB.
 */
const REPLACE_ABOVE_BYTES = 64 * 1024 * 1024

interface Waiting {
  readonly id: number
  readonly resolve: (converted: Converted) => void
  readonly reject: (error: unknown) => void
}

/**
 * Starts the converter from `url` (convert-worker's build, resolved by the pool) and resolves once
 * it has loaded: a converter that cannot start fails the worker's start, not a document.
 */
export const startConverter = (url: string, heapMiB: number): Promise<Convert> =>
  new Promise((started, failed) => {
    let waiting: Waiting | undefined
    let nextId = 1
    let gone: Loss | undefined
    const lose = (loss: Loss): void => {
      if (gone) return
      gone = { outOfMemory: loss.outOfMemory, why: `converter ${loss.why}` }
      failed(new Error(gone.why))
      waiting?.reject(new ConverterLost(gone))
      waiting = undefined
    }
    const onMessage = (reply: ConvertReply | { readonly ready: true }): void => {
      if ("ready" in reply) {
        started(convert)
        return
      }
      const current = waiting
      if (current?.id !== reply.id) return
      waiting = undefined
      if ("converted" in reply) current.resolve(reply.converted)
      else if ("rejected" in reply) current.reject(new CompileFailure("rejected", reply.rejected))
      else current.reject(new Trapped(reply.trapped))
      if (reply.heapBytes > REPLACE_ABOVE_BYTES) replace()
    }
    const spawn = () => startThread(new URL(url), heapMiB, { message: onMessage, lost: lose })
    let worker = spawn()
    const replace = (): void => {
      void endThread(worker)
      // Messages wait for the new thread to load; should it fail to, the next conversion throws.
      worker = spawn()
    }
    const convert: Convert = (job, undecodableImages) =>
      new Promise((resolve, reject) => {
        if (gone) return reject(new ConverterLost(gone))
        const id = nextId++
        waiting = { id, resolve, reject }
        worker.postMessage({ id, job, undecodableImages: [...(undecodableImages ?? [])] } satisfies ConvertRequest)
      })
  })
