/**
 * A compiler worker in a child process: the native engine's (worker-host.ts). Killing the process
 * is the only way to stop a native compile; SIGKILL frees its core at once.
 */
import { type ChildProcess, fork } from "node:child_process"
import { readFileSync } from "node:fs"
import type { Socket } from "node:net"
import { onceLost, type StartHost } from "./worker-host.ts"

/**
 * How often a rendering process's resident memory is read. A native compile's memory is Rust's
 * heap, which no engine-side limit bounds, so the parent watches it from outside; at this
 * interval a runaway allocation overshoots the bound by what it allocates in a tenth of a second.
 */
const MEMORY_POLL_MS = 100

/** A process's resident memory (Linux's /proc), or undefined where it cannot be read. */
export const residentBytes = (pid: number): number | undefined => {
  try {
    const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "latin1"))?.[1]
    return kib === undefined ? undefined : Number(kib) * 1024
  } catch {
    return undefined
  }
}

/**
 * What a process prints as it aborts for want of memory: V8 when the JavaScript heap is full (the
 * Markdown of a huge document is converted in the worker), Rust's allocator when an allocation
 * fails. Nothing else of the child's standard error is kept or logged: a Rust panic's message
 * quotes the text being typeset (trap-report.ts).
 */
const OUT_OF_MEMORY = /JavaScript heap out of memory|Reached heap limit|memory allocation of \d+ bytes failed/

/**
 * The stream's last few hundred characters, kept between chunks so that a message split between
 * two is still read. Each chunk is read whole with the tail before it: V8 writes its message and
 * the native stack after it (a kilobyte or two) in one chunk as often as not.
 */
const TAIL_CHARS = 512

/** The parent's variables a worker process may see: the search path, and the C library's allocator settings. */
const workerEnvironment = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && (entry[0] === "PATH" || entry[0].startsWith("MALLOC_"))
    )
  )

export interface ProcessHostOptions {
  /** The built worker script (dist/native-worker.js). */
  readonly script: string
  /** Sent as the first message; the worker starts from it. */
  readonly setup: unknown
  /** Variables set in the child's environment, over the parent's. */
  readonly env: Readonly<Record<string, string>>
  /** The child's JavaScript heap (V8's old generation), in MiB. */
  readonly heapMiB: number
  /** A rendering child whose resident memory has grown by more than this since before its first job is killed, its job failing `out_of_memory`. */
  readonly memoryLimitBytes: number
}

const kill = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once("exit", resolve))
  // Whoever awaits the end keeps the process alive until it comes (an idle child is unref'd).
  child.ref()
  child.kill("SIGKILL")
  await exited
}

export const processHost =
  (options: ProcessHostOptions): StartHost =>
  (events) => {
    const child = fork(options.script, [], {
      // Not the parent's options (a test runner's loader): the worker is plain JavaScript.
      execArgv: [`--max-old-space-size=${options.heapMiB}`],
      // Only what a worker needs: it typesets untrusted text in native code, and the server's own
      // environment holds its secrets (the server key, the database's address, the admin token).
      env: { ...workerEnvironment(), ...options.env },
      // PDFs travel as Uint8Array, not as JSON arrays of numbers.
      serialization: "advanced",
      // Nothing the child prints reaches the log: a Rust panic's message, written straight to its
      // standard error, quotes the text being typeset (trap-report.ts). Its standard error is read
      // only for the words of an abort for want of memory (OUT_OF_MEMORY). A start failure comes
      // as a message.
      stdio: ["ignore", "ignore", "pipe", "ipc"]
    })
    const lost = onceLost(events.lost)
    let watch: NodeJS.Timeout | undefined
    let tail = ""
    let outOfMemory = false
    child.stderr?.setEncoding("latin1")
    child.stderr?.on("data", (chunk: string) => {
      const read = tail + chunk
      outOfMemory ||= OUT_OF_MEMORY.test(read)
      tail = read.slice(-TAIL_CHARS)
    })
    child.on("message", events.message)
    child.on("error", (error: Error & { code?: string }) =>
      lost({ outOfMemory: false, why: `worker process error: ${error.code ?? error.name}` })
    )
    // 'close' comes after the standard error has been read to its end, 'exit' may come before.
    child.on("close", (code, signal) =>
      lost(
        outOfMemory
          ? { outOfMemory: true, why: `the worker process ran out of memory (${signal ?? `code ${code}`})` }
          : { outOfMemory: false, why: `worker process exited with ${signal ?? `code ${code}`}` }
      )
    )
    child.send({ setup: options.setup })
    // The bound applies to what rendering adds, as the WebAssembly compiler's does to its memory:
    // the resident memory of the worker before its first job (runtime, binary, font tables) is not counted.
    let baseline: number | undefined
    const resident = () => (child.pid === undefined ? undefined : residentBytes(child.pid))
    const checkMemory = () => {
      const now = resident()
      if (now === undefined || now - (baseline ?? 0) <= options.memoryLimitBytes) return
      lost({ outOfMemory: true, why: `the worker process grew past ${Math.round(options.memoryLimitBytes / 1048576)} MiB` })
      void kill(child)
    }
    return {
      post: (message) => child.send(message as object),
      busy: () => {
        baseline ??= resident()
        child.ref()
        child.channel?.ref()
        ;(child.stderr as Socket | null)?.ref()
        clearInterval(watch)
        watch = setInterval(checkMemory, MEMORY_POLL_MS)
      },
      idle: () => {
        clearInterval(watch)
        watch = undefined
        child.unref()
        child.channel?.unref()
        // An idle worker keeps no process alive, by its standard error no more than by itself.
        ;(child.stderr as Socket | null)?.unref()
      },
      terminate: async () => {
        clearInterval(watch)
        child.removeAllListeners()
        child.on("error", () => {})
        await kill(child)
      }
    }
  }
