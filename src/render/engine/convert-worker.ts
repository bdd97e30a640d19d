/**
 * A WebAssembly worker's converter thread (converter.ts): Markdown to Typst, one document at a
 * time, under the worker heap bound (PRESSROOM_RENDER_WORKER_HEAP_MB). A document that exhausts it
 * ends this thread, and the worker that started it reports the loss to the pool. It says it is
 * ready once loaded, and writes nothing to the console (a parser's warning could quote the text).
 */
import { getHeapStatistics } from "node:v8"
import { parentPort } from "node:worker_threads"
import { CompileFailure } from "./engine.ts"
import { describeTrap, keepCompilerConsole } from "./trap-report.ts"
import { convertHere, type Converted } from "./convert.ts"
import type { TypesetJob } from "./engine.ts"

export interface ConvertRequest {
  readonly id: number
  readonly job: TypesetJob
  readonly undecodableImages: ReadonlyArray<string>
}

type ConvertOutcome =
  | { readonly converted: Converted }
  /** The document cannot be typeset (nested past what the parser's stack holds). */
  | { readonly rejected: ReadonlyArray<string> }
  /** The conversion threw: the kind of error only (trap-report.ts). */
  | { readonly trapped: string }

/** What a conversion gave, and the thread's heap after it (`heapBytes`, V8's total heap size). */
export type ConvertReply = { readonly id: number; readonly heapBytes: number } & ConvertOutcome

const port = parentPort!
keepCompilerConsole()
port.on("message", async ({ id, job, undecodableImages }: ConvertRequest) => {
  let outcome: ConvertOutcome
  try {
    outcome = { converted: await convertHere(job, new Set(undecodableImages)) }
  } catch (error) {
    outcome = error instanceof CompileFailure ? { rejected: error.details } : { trapped: describeTrap(error) }
  }
  port.postMessage({ id, heapBytes: getHeapStatistics().total_heap_size, ...outcome } satisfies ConvertReply)
})
port.postMessage({ ready: true })
