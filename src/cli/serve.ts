/** `pressroom serve`: the HTTP API until SIGINT or SIGTERM, which stop it gracefully. */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { ServerLive } from "../http/server.ts"

export const serveUsage = "usage: pressroom serve"

export const runServe = async (): Promise<void> => {
  // Nothing exports spans: with the tracer on, every SQL statement and request would still build
  // spans, about a third of a statement's cost on the embedded database.
  NodeRuntime.runMain(Layer.launch(ServerLive).pipe(Effect.withTracerEnabled(false)))
  await new Promise<never>(() => {})
}
