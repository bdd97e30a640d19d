/**
 * Where a compiler worker runs, as the pool (pool.ts) sees it: something it starts, posts jobs to,
 * hears replies and losses from, and ends. The pool's scheduling (queue, deadlines, cancellation,
 * retries, replacements) is the same whatever runs the worker; only how a worker is started,
 * reached and ended differs:
 * - a worker thread (thread-host.ts) runs the WebAssembly compiler, which `terminate()` interrupts
 *   wherever it is;
 * - a child process (process-host.ts) runs the native compiler: a native call cannot be interrupted
 *   inside a thread (`terminate()` waits for it to return, burning the core meanwhile), so a render
 *   past its deadline or cancelled ends with the process, killed.
 */
import type { Loss } from "./engine.ts"
import type { RenderWorkerReply } from "./worker-loop.ts"

export interface HostEvents {
  readonly message: (reply: RenderWorkerReply) => void
  /** The worker died or failed; called at most once, and never after terminate(). */
  readonly lost: (loss: Loss) => void
}

export interface WorkerHost {
  post(message: unknown): void
  /** A job runs: the worker keeps the process alive (and its memory bound is watched). */
  busy(): void
  /** No job runs: an idle worker must not keep the process alive (a CLI or a test exits without close()). */
  idle(): void
  /** Ends the worker at once, whatever it is doing; no event follows. */
  terminate(): Promise<void>
}

export type StartHost = (events: HostEvents) => WorkerHost

/** Calls `lost` once: a thread's 'error' is followed by its 'exit', a process's 'error' may be too. */
export const onceLost = (lost: HostEvents["lost"]): HostEvents["lost"] => {
  let reported = false
  return (loss) => {
    if (reported) return
    reported = true
    lost(loss)
  }
}
