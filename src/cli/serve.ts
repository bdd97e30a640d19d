/** `pressroom serve`: the HTTP API until SIGINT or SIGTERM, which stop it gracefully. */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { ServerLive } from "../http/server.ts"

export const serveUsage = "usage: pressroom serve"

/**
 * Whether V8 collects garbage on each thread's own: without it, background collections take
 * about a core from the render workers (README, "Documents are typeset in worker threads"). It
 * can only be given at start; Deno's `--v8-flags` do not show in `execArgv`, its tasks pass it.
 */
const singleThreadedGc = () => "Deno" in globalThis || process.execArgv.includes("--single-threaded-gc")

export const runServe = async (): Promise<void> => {
  if (!singleThreadedGc()) {
    console.error("pressroom: Node was started without --single-threaded-gc; with several render workers, renders run up to half as fast (npm start passes it)")
  }
  // Nothing exports spans: with the tracer on, every SQL statement and request would still build
  // spans, about a third of a statement's cost on the embedded database.
  NodeRuntime.runMain(Layer.launch(ServerLive).pipe(Effect.withTracerEnabled(false)))
  await new Promise<never>(() => {})
}
