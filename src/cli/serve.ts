/** `pressroom serve`: the HTTP API until SIGINT or SIGTERM, which stop it gracefully. */
import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { ServerLive } from "../http/server.ts"

export const serveUsage = "usage: pressroom serve"

export const runServe = async (): Promise<void> => {
  NodeRuntime.runMain(Layer.launch(ServerLive))
  await new Promise<never>(() => {})
}
