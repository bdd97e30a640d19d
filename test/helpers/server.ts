/**
 * A real Pressroom server process on a free port, as a client meets it: `pressroom serve` with
 * the given environment, stopped (SIGTERM, then SIGKILL) when the test ends.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { childEnv } from "./child-env.ts"
import { serverEngine } from "./render.ts"
import { TEST_SERVER_KEY } from "./server-key.ts"
import type { TestContext } from "./tap.ts"

export const ADMIN_TOKEN = "test-admin-token-0123456789abcdef"

export interface RunningServer {
  readonly url: string
  /** PRESSROOM_DATA_DIR of the process (artifacts, and the embedded database unless DATABASE_URL is set). */
  readonly dataDir: string
  readonly process: ChildProcess
  /** Everything the server wrote, for assertions about logs. */
  readonly output: () => string
  /** SIGTERM and wait for exit; resolves with the exit code. */
  readonly stop: () => Promise<number | null>
}

/**
 * How `pressroom serve` is started: by Node through the bin, which runs the build in dist/ (npm
 * test builds it first), or by Deno from the sources, as the `serve` task of deno.json does.
 */
const commands = {
  node: [process.execPath, "--single-threaded-gc", join(packageRoot, "bin", "pressroom.js"), "serve"],
  deno: [
    join(packageRoot, "node_modules", "deno", "deno"),
    "run",
    "--v8-flags=--single-threaded-gc",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-sys",
    "--allow-run",
    "--allow-net",
    join(packageRoot, "src", "cli", "main.ts"),
    "serve"
  ]
} as const

/**
 * V8's flags for a Node process of ours that does not compile Typst to WebAssembly: WebAssembly
 * compiled by its baseline compiler alone. PGlite's 9 MB of WebAssembly is otherwise recompiled,
 * function by hot function, by the optimising compiler on background threads, which a process
 * living seconds never earns back: a PGlite server's start went from about 6 to 3.5 CPU-seconds,
 * and ten previews and publications after it took less CPU, not more. Not for the WebAssembly
 * engine, whose compiler lives in the server's worker threads and earns it back over a render.
 * V8 runs the same code either way: nothing a client sees changes.
 */
export const BASELINE_WASM_ONLY: ReadonlyArray<string> = ["--liftoff-only"]

/** V8's flags for a Node process of ours that renders with `engine`. */
export const v8FlagsFor = (engine: string): ReadonlyArray<string> => (engine === "native" ? BASELINE_WASM_ONLY : [])

/** `pressroom serve` spawned with the suite's defaults under `env`, on a fresh data folder unless `env` names one. */
const spawnServe = (env: Readonly<Record<string, string>>, runtime: keyof typeof commands) => {
  const dataDir = env.PRESSROOM_DATA_DIR ?? mkdtempSync(join(tmpdir(), "pressroom-server-"))
  const engine = runtime === "deno" ? "wasm" : (env.PRESSROOM_RENDER_ENGINE ?? serverEngine)
  const [command, ...commandArgs] = commands[runtime]
  const args = runtime === "node" ? [...v8FlagsFor(engine), ...commandArgs] : commandArgs
  const child = spawn(command, args, {
    cwd: packageRoot,
    env: childEnv({
      PORT: "0",
      HOST: "127.0.0.1",
      PRESSROOM_ADMIN_TOKEN: ADMIN_TOKEN,
      PRESSROOM_RENDER_WORKERS: "1",
      // The native compiler runs under Node only: a Deno server renders with WebAssembly.
      PRESSROOM_RENDER_ENGINE: engine,
      // A test's server renders a few documents: the warm-up page would be most of its renders
      // (test/cli/serve-start.test.ts starts one with it).
      PRESSROOM_RENDER_WARM_UP: "false",
      // Throwaway passwords: a hash at the default 2^17 is 0.4 CPU-seconds, and the dashboard's
      // tests make dozens (test/members/members.test.ts checks the default cost).
      PRESSROOM_PASSWORD_HASH_COST: "10",
      // As npm start and the serve task run it.
      MALLOC_MMAP_THRESHOLD_: "131072",
      // PostgreSQL requires a server key; an embedded server makes its own in its data folder.
      ...(env.DATABASE_URL ? { PRESSROOM_SERVER_KEY: TEST_SERVER_KEY } : {}),
      ...env,
      PRESSROOM_DATA_DIR: dataDir
    }),
    stdio: ["ignore", "pipe", "pipe"]
  })
  return { child, dataDir }
}

export const startServer = async (
  t: TestContext | undefined,
  env: Readonly<Record<string, string>>,
  runtime: keyof typeof commands = "node"
): Promise<RunningServer> => {
  const { child, dataDir } = spawnServe(env, runtime)
  let output = ""
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    let listening = false
    const onData = (chunk: Buffer) => {
      const from = Math.max(0, output.length - 100)
      output += chunk.toString()
      // Only until the line is seen, and only the new text: a server a whole run shares logs
      // every request, and searching all it wrote at each chunk grew with the square of it.
      if (listening) return
      const match = /Listening on (http:\/\/[^\s]+)/.exec(output.slice(from))
      if (match) {
        listening = true
        resolve(match[1]!)
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)))
  })
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000)
    const code = await exited
    clearTimeout(timer)
    return code
  }
  t?.teardown(stop)
  return { url, dataDir, process: child, output: () => output, stop }
}

/**
 * `pressroom serve` under `env` when it is expected to refuse to start: its exit code and what it
 * wrote. A server that starts listening instead is stopped, and the test sees its output.
 */
export const refusedStart = async (env: Readonly<Record<string, string>>): Promise<{ code: number | null; output: string }> => {
  const { child } = spawnServe(env, "node")
  let output = ""
  const collect = (chunk: Buffer) => {
    output += chunk.toString()
    if (/Listening on /.test(output)) child.kill("SIGKILL")
  }
  child.stdout!.on("data", collect)
  child.stderr!.on("data", collect)
  const code = await new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
  return { code, output }
}
