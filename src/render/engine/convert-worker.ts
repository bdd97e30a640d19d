/**
 * A WebAssembly worker's converter thread (converter.ts): Markdown to Typst, one document at a
 * time, under the worker heap bound (PRESSROOM_RENDER_WORKER_HEAP_MB). A document that exhausts it
 * ends this thread, and the worker that started it reports the loss to the pool.
 */
import { parentPort } from "node:worker_threads"
import { CompileFailure } from "./engine.ts"
import { describeTrap } from "./trap-report.ts"
import { convertHere, type Converted, type TypesetJob } from "./typeset.ts"

export interface ConvertRequest {
  readonly id: number
  readonly job: TypesetJob
  readonly undecodableImages: ReadonlyArray<string>
}

export type ConvertReply =
  | { readonly id: number; readonly converted: Converted }
  /** The document cannot be typeset (nested past what the parser's stack holds). */
  | { readonly id: number; readonly rejected: ReadonlyArray<string> }
  /** The conversion threw: the kind of error only (trap-report.ts). */
  | { readonly id: number; readonly trapped: string }

const port = parentPort!
port.on("message", async ({ id, job, undecodableImages }: ConvertRequest) => {
  let reply: ConvertReply
  try {
    reply = { id, converted: await convertHere(job, new Set(undecodableImages)) }
  } catch (error) {
    reply = error instanceof CompileFailure ? { id, rejected: error.details } : { id, trapped: describeTrap(error) }
  }
  port.postMessage(reply)
})
