/**
 * A real Pressroom server process on a free port, as a client meets it: `pressroom serve` with
 * the given environment, stopped (SIGTERM, then SIGKILL) when the test ends.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { repositoryRoot } from "../../src/render/fonts/manifest.ts"
import type { TestContext } from "./tap.ts"

export const ADMIN_TOKEN = "test-admin-token-0123456789abcdef"

export interface RunningServer {
  readonly url: string
  readonly process: ChildProcess
  /** Everything the server wrote, for assertions about logs. */
  readonly output: () => string
  /** SIGTERM and wait for exit; resolves with the exit code. */
  readonly stop: () => Promise<number | null>
}

export const startServer = async (
  t: TestContext | undefined,
  env: Readonly<Record<string, string>>
): Promise<RunningServer> => {
  const child = spawn(process.execPath, [join(repositoryRoot, "bin", "pressroom.js"), "serve"], {
    cwd: repositoryRoot,
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      PRESSROOM_ADMIN_TOKEN: ADMIN_TOKEN,
      PRESSROOM_RENDER_WORKERS: "1",
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Listening on (http:\/\/[^\s]+)/.exec(output)
      if (match) resolve(match[1]!)
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
  return { url, process: child, output: () => output, stop }
}
