/**
 * Runs documentation's marked blocks as one bash script, as a reader pastes them into a terminal:
 * in their own process group (what a block leaves running in the background, a server started
 * with `npm start &` or a receiver, stops with the test), every line's output collected.
 */
import { spawn } from "node:child_process"
import { createServer } from "node:net"
import { childEnv } from "./child-env.ts"
import { until } from "./lifecycle.ts"
import type { TestContext } from "./tap.ts"

/** A port free on 127.0.0.1 now, for a process the test does not start itself. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** Whether any process of process group `pgid` is still alive. */
const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

export interface DocScript {
  /** The exit code of the script itself (what it left in the background may still run). */
  readonly exited: Promise<number | null>
  /** Everything written so far, by the script and what it started. */
  readonly output: () => string
}

/** Starts `script` under `bash -euo pipefail` in `cwd`; the teardown stops the whole group. */
export const runDocScript = (t: TestContext, script: string, cwd: string, env: Readonly<Record<string, string>>): DocScript => {
  const shell = spawn("bash", ["-euo", "pipefail", "-c", script], {
    cwd,
    detached: true,
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"]
  })
  const pgid = shell.pid!
  t.teardown(async () => {
    if (groupAlive(pgid)) process.kill(-pgid, "SIGTERM")
    await until("the processes the documentation started to stop", async () => !groupAlive(pgid), 60_000)
  })
  let output = ""
  shell.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  shell.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  return { exited: new Promise((resolve) => shell.once("exit", resolve)), output: () => output }
}
