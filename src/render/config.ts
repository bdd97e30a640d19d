/** Renderer settings from the environment (contract section 1). */
import { Config } from "effect"
import { availableParallelism } from "node:os"
import { DEFAULT_COMPILER_MEMORY_MIB, DEFAULT_TIMEOUT_MS, DEFAULT_WORKER_HEAP_MIB, DEFAULT_WORKER_MEMORY_MIB } from "./engine/pool.ts"
import type { RendererConfig } from "./renderer.ts"

/** The renderer's settings: every field of RendererConfig but warmUp, each with its value or default. */
export type RendererSettings = Required<Omit<RendererConfig, "warmUp">>

export const rendererConfig: Config.Config<RendererSettings> = Config.all({
  // Not in the contract: which Typst compiler typesets (RenderEngine); both give the same bytes.
  engine: Config.literal("wasm", "native")("PRESSROOM_RENDER_ENGINE").pipe(Config.withDefault("wasm" as const)),
  workers: Config.integer("PRESSROOM_RENDER_WORKERS").pipe(
    Config.withDefault(availableParallelism()),
    Config.validate({ message: "PRESSROOM_RENDER_WORKERS must be at least 1", validation: (n) => n >= 1 })
  ),
  timeoutMs: Config.integer("PRESSROOM_RENDER_TIMEOUT_MS").pipe(
    Config.withDefault(DEFAULT_TIMEOUT_MS),
    Config.validate({ message: "PRESSROOM_RENDER_TIMEOUT_MS must be at least 100", validation: (n) => n >= 100 })
  ),
  // Not in the contract: how much compiler memory a worker may gather before it is replaced.
  workerMemoryMiB: Config.integer("PRESSROOM_RENDER_WORKER_MEMORY_MB").pipe(
    Config.withDefault(DEFAULT_WORKER_MEMORY_MIB),
    Config.validate({ message: "PRESSROOM_RENDER_WORKER_MEMORY_MB must be at least 64", validation: (n) => n >= 64 })
  ),
  // Not in the contract: the JavaScript heap of a worker; a document that exhausts it fails.
  workerHeapMiB: Config.integer("PRESSROOM_RENDER_WORKER_HEAP_MB").pipe(
    Config.withDefault(DEFAULT_WORKER_HEAP_MIB),
    Config.validate({ message: "PRESSROOM_RENDER_WORKER_HEAP_MB must be at least 16", validation: (n) => n >= 16 })
  ),
  // Not in the contract: how far a worker's compiler memory may grow during one render.
  compilerMemoryMiB: Config.integer("PRESSROOM_RENDER_COMPILER_MEMORY_MB").pipe(
    Config.withDefault(DEFAULT_COMPILER_MEMORY_MIB),
    Config.validate({ message: "PRESSROOM_RENDER_COMPILER_MEMORY_MB must be at least 128", validation: (n) => n >= 128 })
  ),
  // Not in the contract: a process that renders rarely (a test's server, a one-off command)
  // skips the warm-up page, about a CPU-second of its start.
  warmUp: Config.boolean("PRESSROOM_RENDER_WARM_UP").pipe(Config.withDefault(true))
})
