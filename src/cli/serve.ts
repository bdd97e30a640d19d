/** `pressroom serve`: the HTTP API until SIGINT or SIGTERM, which stop it gracefully. */
import { Effect, Layer } from "effect"
import { serverSettings } from "../http/settings.ts"
import { readSettings } from "../shared/read-settings.ts"

/**
 * Whether V8 collects garbage on each thread's own: without it, background collections take
 * about a core from the render workers (docs/performance.md, "Collection on the workers' own threads"). It
 * can only be given at start; Deno's `--v8-flags` do not show in `execArgv`, its tasks pass it.
 */
const singleThreadedGc = () => "Deno" in globalThis || process.execArgv.includes("--single-threaded-gc")

/**
 * Whether glibc's malloc returns large freed blocks to the system at once. By default it raises
 * its threshold for that after the first large free (a font file read, a PDF passed between
 * threads) and then keeps such blocks in per-thread arenas for good: about 100 to 150 MiB more
 * RSS with two render workers (docs/performance.md, "Memory"). It is read when the process starts.
 */
const mallocReturnsMemory = () => process.platform !== "linux" || process.env.MALLOC_MMAP_THRESHOLD_ !== undefined

export const runServe = async (): Promise<void> => {
  // Before anything else, and before the server's modules load: a bad setting is refused at once.
  readSettings(serverSettings)
  if (!singleThreadedGc()) {
    console.error(
      "pressroom: Node was started without --single-threaded-gc; with several render workers, large documents render up to a quarter slower (npm start passes it)"
    )
  }
  if (!mallocReturnsMemory()) {
    console.error(
      "pressroom: MALLOC_MMAP_THRESHOLD_ is not set; the process keeps 100 to 150 MiB more memory than it needs (npm start sets it to 131072)"
    )
  }
  // Nothing exports spans: with the tracer on, every SQL statement and request would still build
  // spans, about a third of a statement's cost on the embedded database.
  // Loaded only once the settings are good (main.ts's rule of loading everything at start is for
  // commands, whose chunks a rebuild may remove; this is the same process a moment later).
  const [{ NodeRuntime }, { ServerLive }] = await Promise.all([import("@effect/platform-node"), import("../http/server.ts")])
  NodeRuntime.runMain(Layer.launch(ServerLive).pipe(Effect.withTracerEnabled(false)))
  await new Promise<never>(() => {})
}
