/**
 * A pool of typst.ts WASM compilers in worker threads. A render is synchronous inside its worker
 * and cannot be interrupted from inside, so one that passes its deadline, is cancelled, traps, or
 * exhausts memory is ended by terminating its worker; a fresh worker takes its place and the pool
 * keeps serving.
 *
 * Whose fault a failure is decides whether the job is worth another attempt later. A job whose
 * worker traps (or dies under it) is tried once more, in the fresh worker that replaces it: a trap
 * that recurs there is the document's (`trapped`), as is a job that exhausts its worker's
 * JavaScript heap (`out_of_memory`); neither would go better in a later attempt. A worker that
 * cannot start, or a font file that fails to load, is the service's (`crashed`).
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"
import { sha256Hex } from "../../shared/hash.ts"
import { type Coverage, coverageFromRuns } from "../fonts/coverage.ts"
import { packageRoot, type VerifiedFont } from "../fonts/manifest.ts"
import type { TypesetJob, TypesetResult } from "../typeset.ts"
import type { BundleFile } from "./bundle.ts"
import {
  cancelled,
  CompileFailure,
  noWorkerReplacements,
  type TypstEngine,
  type WorkerReplacement,
  type WorkerReplacements
} from "./engine.ts"
import { FUNCTION_TABLE_EXPORT, MEMO_LAYOUTS, type MemoLayout } from "./memo-eviction.ts"
import type { RenderWorkerData, RenderWorkerReply } from "./render-worker.ts"
import type { FontInfo } from "./wasm-compiler.ts"
import { exportFunctionTable, limitMemory } from "./table-export.ts"
import { renderWorkerUrl } from "./render-worker-url.ts"

export interface WasmPoolOptions {
  readonly size: number
  readonly timeoutMs: number
  readonly fonts: ReadonlyArray<VerifiedFont>
  readonly bundle: ReadonlyArray<BundleFile>
  /** A worker whose WASM memory grew past this is replaced after its task (ARCHITECTURE.md, "Typst's memo cache is evicted"). */
  readonly recycleAboveBytes: number
  /** Whether each worker typesets a warm-up page before it takes jobs (RendererConfig.warmUp). */
  readonly warmUp: boolean
  /** How long a worker may take to evict after a job before it is taken for hung (default EVICTION_TIMEOUT_MS). */
  readonly evictionTimeoutMs?: number
  /** Memo layouts by release checksum (default MEMO_LAYOUTS); a test passes none to start a binary that has no layout. */
  readonly memoLayouts?: Readonly<Record<string, MemoLayout>>
  /** A worker's JavaScript heap (V8's old generation), in MiB (default DEFAULT_WORKER_HEAP_MIB). */
  readonly heapMiB?: number
  /**
   * The most a compiler instance's WebAssembly memory may grow to, in bytes (default
   * DEFAULT_COMPILER_MEMORY_MIB): an allocation past it traps inside the render, which then fails
   * as the document's fault, instead of the memory being looked at only after the render.
   */
  readonly compilerMemoryBytes?: number
}

const compilerPackage = "@myriaddreamin/typst-ts-web-compiler"

/** Where the released compiler binary is installed (its SHA-256 is `rendererReleaseChecksum`), and its version. */
export const compilerRelease = (): { readonly binaryPath: string; readonly version: string } => {
  const require = createRequire(`${packageRoot}/package.json`)
  return {
    binaryPath: require.resolve(`${compilerPackage}/pkg/typst_ts_web_compiler_bg.wasm`),
    version: (require(`${compilerPackage}/package.json`) as { version: string }).version
  }
}

export const TYPST_VERSION = "0.14.2"

/**
 * A worker's young generation. Uncapped, V8 lets it grow to tens of MiB under the Markdown
 * parser's allocation rate, and each worker keeps that much resident; capped at 8 MiB, two workers
 * rendering letters held about 100 MiB less at a throughput within noise (ARCHITECTURE.md, "Memory").
 */
const YOUNG_GENERATION_MIB = 8

/**
 * A worker's JavaScript heap (V8's old generation: the Markdown tree, the Typst source; not the
 * compiler's WebAssembly memory, which lies outside it). Every document of the render benchmark
 * renders in 48 MiB (the 60-page report and 200,000 characters with a footnote every 200 fail in
 * 32 MiB; 25 November 2026); 256 MiB leaves five times that, where Node's default would let one
 * hostile document take gigabytes.
 */
export const DEFAULT_WORKER_HEAP_MIB = 256

/**
 * The default bound of a compiler instance's WebAssembly memory during a render. Every document of
 * the render benchmark renders within 400 MiB, while a table of thousands of columns grew past it
 * (25 November 2026); a WebAssembly memory never shrinks, so the recycle threshold
 * (PRESSROOM_RENDER_WORKER_MEMORY_MB) replaces a worker that kept much of it after its render.
 */
export const DEFAULT_COMPILER_MEMORY_MIB = 512

/**
 * Eviction takes 75 to 115 ms after a 60-page report (ARCHITECTURE.md, "Typst's memo cache is evicted").
 * A worker still evicting after this long is taken for hung and replaced, rather than kept out of
 * service for a whole render timeout.
 */
export const EVICTION_TIMEOUT_MS = 5_000

interface Pending {
  readonly job: TypesetJob
  readonly resolve: (result: TypesetResult) => void
  readonly reject: (error: unknown) => void
  /** When the job's render deadline passes: set when it first starts, kept when it is tried again. */
  deadline?: number
  /** Why its first worker failed under it, once it has. */
  trapped?: string
}

/** How a worker was lost: its JavaScript heap exhausted, or anything else (`why`, without user text). */
interface Loss {
  readonly outOfMemory: boolean
  readonly why: string
}

/** A worker's 'error' event as a Loss: the error's code or kind, never its message (a stack could quote anything). */
const lossOf = (error: Error & { code?: string }): Loss => ({
  outOfMemory: error.code === "ERR_WORKER_OUT_OF_MEMORY",
  why: `worker error: ${error.code ?? error.name}`
})

type JobReply = Exclude<RenderWorkerReply, { ready: true } | { idle: true }>
type IdleReply = Extract<RenderWorkerReply, { idle: true }>

class Slot {
  readonly worker: Worker
  readonly ready: Promise<void>
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

  constructor(
    url: URL,
    workerData: RenderWorkerData,
    heapMiB: number,
    handlers: {
      readonly reply: (slot: Slot, reply: JobReply) => void
      readonly idle: (slot: Slot, idle: IdleReply) => void
      readonly lost: (slot: Slot, loss: Loss) => void
      readonly fontInfos: (infos: ReadonlyArray<FontInfo>) => void
    },
    reserved?: Pending
  ) {
    this.reserved = reserved
    this.worker = new Worker(url, {
      workerData,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MIB, maxOldGenerationSizeMb: heapMiB },
      // The worker is plain JavaScript (the build's, or TypeScript that Deno runs itself): it needs
      // none of the parent's command-line options. Inherited, a loader the parent was started with
      // (tsx, a test runner's) would be set up again in every new worker: a second on each start.
      execArgv: []
    })
    this.ready = new Promise((resolve, reject) => {
      const onReady = (message: RenderWorkerReply) => {
        if (!("ready" in message)) return
        if (message.fontInfos) handlers.fontInfos(message.fontInfos)
        this.worker.off("message", onReady)
        this.worker.on("message", (reply: JobReply | IdleReply) =>
          "idle" in reply ? handlers.idle(this, reply) : handlers.reply(this, reply)
        )
        // Adding a message listener refs the worker again; an idle worker must not keep the
        // process alive (a CLI or a test exits without close()).
        this.worker.unref()
        this.started = true
        resolve()
      }
      this.worker.on("message", onReady)
      this.worker.once("error", reject)
    })
    // A crash inside the worker surfaces here; a deliberate terminate() does not (listeners are
    // removed first).
    this.worker.on("error", (error) => handlers.lost(this, lossOf(error)))
    this.worker.on("exit", (code) => handlers.lost(this, { outOfMemory: false, why: `worker exited with code ${code}` }))
  }
}

export class WasmEnginePool implements TypstEngine {
  readonly engineVersion: string
  readonly typstVersion = TYPST_VERSION
  readonly releaseChecksum: string
  private readonly slots = new Set<Slot>()
  private readonly queue: Array<Pending> = []
  /** Resolved once: without a built worker (Node) the pool fails to start, saying to run npm run build. */
  private readonly workerUrl = renderWorkerUrl()
  private readonly workerData: Omit<RenderWorkerData, "fontInfos">
  private fontInfos: ReadonlyArray<FontInfo> | undefined
  /** Why the last worker that never started died: the error of jobs no worker can take. */
  private startFailure: string | undefined
  private nextId = 1
  private closed = false
  private readonly replaced: Record<WorkerReplacement, number> = { ...noWorkerReplacements }

  constructor(private readonly options: WasmPoolOptions) {
    const release = compilerRelease()
    const binary = readFileSync(release.binaryPath)
    this.engineVersion = `typst ${TYPST_VERSION} (typst.ts ${release.version}, wasm)`
    this.releaseChecksum = sha256Hex(binary)
    const memoLayout = (options.memoLayouts ?? MEMO_LAYOUTS)[this.releaseChecksum]
    // Fails open: a binary without a layout (a typst.ts upgrade before `npm run memo-layout`)
    // renders the same PDFs, only with memory that grows with every distinct document up to the
    // recycle threshold, as before the eviction.
    if (!memoLayout) {
      console.warn(
        `pressroom: ${compilerPackage} ${release.version} (sha256 ${this.releaseChecksum}) has no memo layout in memo-eviction.ts, so Typst's memo cache is not evicted in this compiler build; ` +
          "worker recycling (PRESSROOM_RENDER_WORKER_MEMORY_MB) bounds the workers' memory instead (npm run memo-layout finds the layout)"
      )
    }
    // One compiled module, shared by every worker.
    this.workerData = {
      module: new WebAssembly.Module(
        limitMemory(
          exportFunctionTable(binary, FUNCTION_TABLE_EXPORT),
          options.compilerMemoryBytes ?? DEFAULT_COMPILER_MEMORY_MIB * 1024 * 1024
        )
      ),
      memoLayout,
      fonts: options.fonts.map(({ path, sha256, where }) => ({ path, sha256, where })),
      bundle: options.bundle,
      warmUp: options.warmUp
    }
    for (let i = 0; i < Math.max(1, options.size); i++) this.spawn()
  }

  /** Resolves when every worker has loaded the compiler, the fonts and the bundle. */
  async warm(): Promise<void> {
    await Promise.all([...this.slots].map((slot) => slot.ready))
  }

  /** The code points the font set covers, as Typst sees the fonts (known once warm). */
  get coverage(): Coverage {
    if (!this.fontInfos) throw new Error("the pool is not warm yet")
    return coverageFromRuns(this.fontInfos.flatMap((font) => font.info.map((face) => face.coverage)))
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
      this.workerUrl,
      { ...this.workerData, fontInfos: this.fontInfos },
      this.options.heapMiB ?? DEFAULT_WORKER_HEAP_MIB,
      {
        reply: (s, reply) => this.onReply(s, reply),
        idle: (s, idle) => this.onIdle(s, idle),
        lost: (s, loss) => this.onLost(s, loss),
        fontInfos: (infos) => {
          this.fontInfos ??= infos
        }
      },
      reserved
    )
    this.slots.add(slot)
    slot.ready.then(
      () => this.dispatch(),
      (error: Error & { code?: string }) => this.onLost(slot, lossOf(error))
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
    // Busy workers keep the process alive; idle ones let a CLI or a test exit without close().
    slot.worker.ref()
    slot.worker.postMessage({ id, job: pending.job })
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
    slot.worker.unref()
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
        this.fail(slot, "out_of_memory", new CompileFailure("out_of_memory", [`${loss.why}: the JavaScript heap is full`]))
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
    slot.worker.removeAllListeners()
    slot.worker.on("error", () => {})
    await slot.worker.terminate()
  }
}
