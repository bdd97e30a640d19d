/**
 * A native worker process must not outlive the pool's process. Its channel closing ends it between
 * jobs, but a native compile holds its only JavaScript thread until Typst returns: a parent killed
 * mid-render (SIGKILL, the kernel's OOM killer) would leave it typesetting for no one, unbounded,
 * since only the parent watches its memory. A small thread of its own notices the parent gone (the
 * process is re-parented) and kills the worker at once, whatever its main thread is doing.
 */
import { Worker } from "node:worker_threads"

/** How often the watching thread looks at the parent's pid. */
const WATCH_MS = 500

export const watchParent = (): void => {
  const watcher = new Worker(
    `const parent = process.ppid
setInterval(() => { if (process.ppid !== parent) process.kill(process.pid, "SIGKILL") }, ${WATCH_MS})`,
    { eval: true, resourceLimits: { maxOldGenerationSizeMb: 4, maxYoungGenerationSizeMb: 1 } }
  )
  // It must not keep the worker alive by itself: the channel does while the pool wants the worker.
  watcher.unref()
}
