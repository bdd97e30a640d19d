/**
 * A pool of compiler workers, whatever the engine: WebAssembly compilers in worker threads
 * (wasm-pool.ts) or native compilers in child processes (native-pool.ts); worker-host.ts says
 * what differs. A render is synchronous inside its worker and cannot be interrupted from inside,
 * so one that passes its deadline, is cancelled, traps, or exhausts memory is ended by ending its
 * worker; a fresh worker takes its place and the pool keeps serving.
 *
 * Whose fault a failure is decides whether the job is worth another attempt later. A job whose
 * worker traps (or dies under it) is tried once more, in the fresh worker that replaces it: a trap
 * that recurs there is the document's (`trapped`), as is a job that exhausts its worker's memory
 * bound (`out_of_memory`); neither would go better in a later attempt. A worker that cannot start,
 * or a font file that fails to load, is the service's (`crashed`).
 */
import type { TypesetJob, TypesetResult } from "./typeset.ts"
import {
  cancelled,
  CompileFailure,
  type Loss,
  noWorkerReplacements,
  type TypstEngine,
  type WorkerReplacement,
  type WorkerReplacements
} from "./engine.ts"
import type { StartHost, WorkerHost } from "./worker-host.ts"
import type { RenderWorkerReply } from "./worker-loop.ts"

export const TYPST_VERSION = "0.14.2"

/**
 * The JavaScript heap a worker converts a document in (V8's old generation: the Markdown tree, the
 * Typst source; not the compiler's memory, which lies outside it; a WebAssembly worker's
 * converter thread, converter.ts, a native worker's process). Every document of the render
 * benchmark renders in 48 MiB (the 60-page report and 200,000 characters with a footnote every
 * 200 fail in 32 MiB; 25 November 2026); 256 MiB leaves five times that, where Node's default
 * would let one hostile document take gigabytes.
 */
export const DEFAULT_WORKER_HEAP_MIB = 256

/**
 * The default bound of a worker's compiler memory during a render (a WebAssembly instance's
 * memory; a native worker's whole resident memory). Every document of the render benchmark
 * renders within 400 MiB, while a table of thousands of columns grew past it (25 November 2026);
 * WebAssembly memory never shrinks, so the recycle threshold (PRESSROOM_RENDER_WORKER_MEMORY_MB)
 * replaces a worker that kept much of it after its render.
 */
export const DEFAULT_COMPILER_MEMORY_MIB = 512

/**
 * With Typst's memo cache evicted, a worker's memory stays at the high-water mark of the largest
 * document it has typeset; past this it is replaced (docs/renderer.md, "Typst's memo cache is evicted").
 */
export const DEFAULT_WORKER_MEMORY_MIB = 256

/** How long one render may take before its worker is stopped and it fails with `timeout` (contract section 1). */
export const DEFAULT_TIMEOUT_MS = 30_000

/**
 * Eviction takes 75 to 115 ms after a 60-page report (docs/renderer.md, "Typst's memo cache is evicted").
 * A worker still evicting after this long is taken for hung and replaced, rather than kept out of
 * service for a whole render timeout.
 */
export const EVICTION_TIMEOUT_MS = 5_000

export interface PoolOptions {
  readonly size: number
  readonly timeoutMs: number
  /** Starts one worker. */
  readonly start: StartHost
  /** A worker whose memory grew past this is replaced after its task (docs/renderer.md, "Typst's memo cache is evicted"). */
  readonly recycleAboveBytes: number
  /** How long a worker may take to evict after a job before it is taken for hung (default EVICTION_TIMEOUT_MS). */
  readonly evictionTimeoutMs?: number
  readonly engineVersion: string
  readonly releaseChecksum: string
}

interface Pending {
  readonly job: TypesetJob
  readonly resolve: (result: TypesetResult) => void
  readonly reject: (error: unknown) => void
  /** When the job's render deadline passes: set when it first starts, kept when it is tried again. */
  deadline?: number
  /** Why its first worker failed under it, once it has. */
  trapped?: string
}

type JobReply = Exclude<RenderWorkerReply, { ready: true } | { idle: true } | { startFailed: string } | { lost: unknown }>
type IdleReply = Extract<RenderWorkerReply, { idle: true }>
type ReadyReply = Extract<RenderWorkerReply, { ready: true }>

class Slot {
  readonly host: WorkerHost
  readonly ready: Promise<ReadyReply>
  /** Set once the worker has loaded everything; only started workers take jobs. */
  started = false
  current: { readonly id: number; readonly pending: Pending; readonly timer: NodeJS.Timeout } | undefined
  /** A job whose worker failed under it, waiting for this fresh worker to try it again. */
  reserved: Pending | undefined
  /**
   * Between a job's reply and the worker's idle message, while it evicts Typst's memo cache: the
   * deadline after which the worker is replaced, as if the eviction had hung.
   */
  evicting: NodeJS.Timeout | undefined
  /** Fails `ready` when the worker is lost before it starts. */
  failStart: (loss: Loss) => void = () => {}

  constructor(
    start: StartHost,
    handlers: {
      readonly reply: (slot: Slot, reply: JobReply) => void
      readonly idle: (slot: Slot, idle: IdleReply) => void
      readonly lost: (slot: Slot, loss: Loss) => void
    },
    reserved?: Pending
  ) {
    this.reserved = reserved
    let markReady: (reply: ReadyReply) => void = () => {}
    this.ready = new Promise((resolve, reject) => {
      markReady = resolve
      this.failStart = (loss) => reject(new Error(loss.why))
    })
    this.host = start({
      message: (message) => {
        if ("ready" in message) {
          this.started = true
          // A starting worker keeps the process alive (a script awaiting the pool); a started one
          // only while it renders.
          this.host.idle()
          markReady(message)
        } else if ("startFailed" in message) handlers.lost(this, { outOfMemory: false, why: message.startFailed })
        else if ("lost" in message) handlers.lost(this, message.lost)
        else if ("idle" in message) handlers.idle(this, message)
        else handlers.reply(this, message)
      },
      lost: (loss) => handlers.lost(this, loss)
    })
  }
}

export class EnginePool implements TypstEngine {
  readonly engineVersion: string
  readonly typstVersion = TYPST_VERSION
  readonly releaseChecksum: string
  private readonly slots = new Set<Slot>()
  private readonly queue: Array<Pending> = []
  /** Why the last worker that never started died: the error of jobs no worker can take. */
  private startFailure: string | undefined
  private nextId = 1
  private closed = false
  private readonly replaced: Record<WorkerReplacement, number> = { ...noWorkerReplacements }

  constructor(
    private readonly options: PoolOptions,
    /** What a worker's ready message carries, the first time one does (the WebAssembly workers' font descriptions). */
    private readonly onFirstReady: (ready: ReadyReply) => void = () => {}
  ) {
    this.engineVersion = options.engineVersion
    this.releaseChecksum = options.releaseChecksum
    for (let i = 0; i < Math.max(1, options.size); i++) this.spawn()
  }

  /** Resolves when every worker has loaded the compiler, the fonts and the bundle. */
  async warm(): Promise<void> {
    await Promise.all([...this.slots].map((slot) => slot.ready))
  }

  typeset(job: TypesetJob, signal?: AbortSignal): Promise<TypesetResult> {
    if (this.closed) return Promise.reject(new CompileFailure("crashed", ["engine closed"]))
    if (this.slots.size === 0) return Promise.reject(this.cannotStart())
    if (signal?.aborted) return Promise.reject(cancelled())
    return new Promise((resolve, reject) => {
      const onAbort = () => this.cancel(pending)
      // However the job ends, the signal must stop holding it (a long-lived signal would leak it).
      const pending: Pending = {
        job,
        resolve: (result) => {
          signal?.removeEventListener("abort", onAbort)
          resolve(result)
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort)
          reject(error)
        }
      }
      signal?.addEventListener("abort", onAbort, { once: true })
      this.queue.push(pending)
      this.dispatch()
    })
  }

  workerReplacements(): WorkerReplacements {
    return { ...this.replaced }
  }

  async close(): Promise<void> {
    this.closed = true
    const closing = new CompileFailure("crashed", ["engine closed"])
    for (const pending of this.queue.splice(0)) pending.reject(closing)
    // A running job ends with its worker: left to its deadline, it would keep the process alive
    // and then fail as a timeout.
    for (const slot of this.slots) {
      this.endCurrent(slot, closing)
      slot.reserved?.reject(closing)
      slot.reserved = undefined
    }
    await Promise.all([...this.slots].map((slot) => this.retire(slot)))
  }

  /** A new worker; `reserved`, a job it takes before any other. */
  private spawn(reserved?: Pending): void {
    const slot = new Slot(
      this.options.start,
      {
        reply: (s, reply) => this.onReply(s, reply),
        idle: (s, idle) => this.onIdle(s, idle),
        lost: (s, loss) => this.onLost(s, loss)
      },
      reserved
    )
    this.slots.add(slot)
    slot.ready.then(
      (ready) => {
        this.onFirstReady(ready)
        this.dispatch()
      },
      // Reported by onLost already; warm() reports it to whoever waits.
      () => {}
    )
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (!slot.started || slot.current || slot.evicting) continue
      const pending = slot.reserved ?? this.queue.shift()
      slot.reserved = undefined
      if (pending) this.assign(slot, pending)
    }
  }

  private assign(slot: Slot, pending: Pending): void {
    const id = this.nextId++
    pending.deadline ??= Date.now() + this.options.timeoutMs
    const timer = setTimeout(() => {
      this.fail(slot, "timeout", new CompileFailure("timeout", [`render exceeded ${this.options.timeoutMs} ms`]))
    }, pending.deadline - Date.now())
    slot.current = { id, pending, timer }
    slot.host.busy()
    slot.host.post({ id, job: pending.job })
  }

  private onReply(slot: Slot, reply: JobReply): void {
    const current = slot.current
    if (!current || current.id !== reply.id) return
    clearTimeout(current.timer)
    slot.current = undefined
    if (reply.ok) {
      current.pending.resolve({ pdf: reply.pdf, warnings: reply.warnings, assetSha256s: reply.assetSha256s })
    } else if (reply.failure === "trapped") {
      this.tryAgain(slot, current.pending, reply.errors.join("; "))
      return
    } else {
      current.pending.reject(new CompileFailure(reply.failure === "rejected" ? "rejected" : "crashed", reply.errors))
    }
    if (!reply.evicts) {
      this.replace(slot, "crashed")
      return
    }
    slot.evicting = setTimeout(() => {
      slot.evicting = undefined
      this.replace(slot, "eviction")
    }, this.options.evictionTimeoutMs ?? EVICTION_TIMEOUT_MS)
  }

  private onIdle(slot: Slot, idle: IdleReply): void {
    clearTimeout(slot.evicting)
    slot.evicting = undefined
    slot.host.idle()
    if (idle.memoryBytes > this.options.recycleAboveBytes) this.replace(slot, "recycled")
    else this.dispatch()
  }

  /** A queued job is dropped; a running one ends with its worker, like a job past its deadline. */
  private cancel(pending: Pending): void {
    const queued = this.queue.indexOf(pending)
    if (queued >= 0) {
      this.queue.splice(queued, 1)
      pending.reject(cancelled())
      return
    }
    for (const slot of this.slots) {
      if (slot.current?.pending === pending) {
        this.fail(slot, "cancelled", cancelled())
        return
      }
      if (slot.reserved === pending) {
        slot.reserved = undefined
        pending.reject(cancelled())
        return
      }
    }
  }

  private onLost(slot: Slot, loss: Loss): void {
    if (!this.slots.has(slot)) return
    if (slot.started) {
      const pending = slot.current?.pending
      if (loss.outOfMemory) {
        this.fail(slot, "out_of_memory", new CompileFailure("out_of_memory", [`${loss.why}: its memory bound is reached`]))
      } else if (pending) {
        this.tryAgain(slot, pending, loss.why)
      } else {
        // Between jobs (evicting, or idle): no job's fault.
        this.replace(slot, "crashed")
      }
      return
    }
    // A worker that dies before it starts would die again: no replacement, or the pool would
    // respawn forever. With no worker left, nothing queued can run. A job waiting for it to try
    // again fails as the service's fault.
    this.startFailure = loss.why
    slot.failStart(loss)
    slot.reserved?.reject(this.cannotStart())
    slot.reserved = undefined
    void this.retire(slot)
    if (this.slots.size === 0) for (const pending of this.queue.splice(0)) pending.reject(this.cannotStart())
  }

  /**
   * The job's worker trapped or died under it: the worker is replaced, and the first time the job
   * goes to the replacement, before any other job; the second time the document is to blame.
   */
  private tryAgain(slot: Slot, pending: Pending, why: string): void {
    if (slot.current?.pending === pending) {
      clearTimeout(slot.current.timer)
      slot.current = undefined
    }
    if (pending.trapped !== undefined) {
      pending.reject(new CompileFailure("trapped", [`first worker: ${pending.trapped}`, `second worker: ${why}`]))
      this.replace(slot, "crashed")
      return
    }
    pending.trapped = why
    this.replace(slot, "crashed", pending)
  }

  private cannotStart(): CompileFailure {
    return new CompileFailure("crashed", [`no compiler worker could start: ${this.startFailure ?? "unknown"}`])
  }

  /** Ends the slot's current task with `error` and puts a fresh worker in its place. */
  private fail(slot: Slot, why: WorkerReplacement, error: CompileFailure): void {
    this.endCurrent(slot, error)
    this.replace(slot, why)
  }

  private endCurrent(slot: Slot, error: CompileFailure): void {
    const current = slot.current
    if (!current) return
    clearTimeout(current.timer)
    slot.current = undefined
    current.pending.reject(error)
  }

  /** Puts a fresh worker in the slot's place; `reserved`, a job it takes first. */
  private replace(slot: Slot, why: WorkerReplacement, reserved?: Pending): void {
    this.replaced[why]++
    void this.retire(slot)
    if (!this.closed) this.spawn(reserved)
    else reserved?.reject(new CompileFailure("crashed", ["engine closed"]))
    this.dispatch()
  }

  private async retire(slot: Slot): Promise<void> {
    this.slots.delete(slot)
    clearTimeout(slot.evicting)
    await slot.host.terminate()
  }
}
