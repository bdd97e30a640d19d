/**
 * One `pressroom serve` per database for a whole tap run, for the test files that need nothing of
 * a server but fresh accounts on it with the suite's defaults (docs/testing.md, "One server per
 * file and database"). A start costs about 2 CPU-seconds on PostgreSQL and 3.5 on PGlite; a
 * file that shares skips both.
 *
 * The first file of a run that asks starts a daemon (shared-server-daemon.ts) that starts the
 * servers, writes their addresses into a folder named by the tap runner's process (id and start time), and
 * stops them when that process ends. A file run by node itself, without tap's runner, starts
 * servers of its own instead.
 *
 * What may not share: a file that reads /metrics or the server's log, stops, kills or restarts
 * it, changes a setting, or reads the database directly (PGlite is one process's).
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { childEnv } from "./child-env.ts"
import { databaseKinds, type DatabaseKind, freshDatabase } from "./database.ts"
import { until } from "./lifecycle.ts"
import { DEFAULT_SERVER_ENGINE, serverEngine } from "./render.ts"
import { startServer } from "./server.ts"
import type { TestContext } from "./tap.ts"

export interface SharedServer {
  readonly url: string
}

/**
 * When the process `pid` started, where /proc tells (Linux): with its id, a name no later process
 * reusing the id shares, so a folder a killed run left behind is never read as this run's.
 */
const startedAt = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[19]
  } catch {
    return "0"
  }
}

/** The folder of this run's shared servers, and the files the daemon writes into it. */
export const sharedServersFolder = (runnerPid: number) => {
  const folder = join(tmpdir(), `pressroom-shared-servers-${runnerPid}-${startedAt(runnerPid)}`)
  return { folder, servers: join(folder, "servers.json"), failure: join(folder, "failure.txt"), log: join(folder, "daemon.log") }
}

/** Settings of a shared server beyond the suite's: several files render on it at once. */
export const SHARED_SERVER_ENV = { PRESSROOM_RENDER_WORKERS: "2" } as const

const underTapRunner = () => process.env.TAP === "1" && process.env.TAP_CHILD_ID !== undefined

let addresses: Promise<Readonly<Partial<Record<DatabaseKind, string>>>> | undefined

/** This run's shared servers, started by whichever file asks first. */
const sharedAddresses = () => {
  addresses ??= (async () => {
    const files = sharedServersFolder(process.ppid)
    mkdirSync(files.folder, { recursive: true })
    try {
      closeSync(openSync(join(files.folder, "lock"), "wx"))
      const log = openSync(files.log, "a")
      const daemon = spawn(
        process.execPath,
        ["--import=tsx", join(packageRoot, "test", "helpers", "shared-server-daemon.ts"), String(process.ppid)],
        { cwd: packageRoot, detached: true, stdio: ["ignore", log, log], env: childEnv() }
      )
      daemon.unref()
      closeSync(log)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
    await until(
      "the shared servers to listen",
      async () => {
        if (existsSync(files.failure)) throw new Error(`the shared servers did not start:\n${readFileSync(files.failure, "utf8")}`)
        return existsSync(files.servers)
      },
      120_000
    )
    return JSON.parse(readFileSync(files.servers, "utf8")) as Partial<Record<DatabaseKind, string>>
  })()
  return addresses
}

/** An email address no other file uses: a member's address is unique across a server's accounts. */
export const uniqueEmail = (name: string): string => `${name}-${randomBytes(4).toString("hex")}@example.com`

/**
 * The shared server on `kind`; a server of the file's own on a fresh database under a bare node
 * run, or for a file whose servers run another engine than the shared ones (convert-wasm.test.ts
 * runs convert.test.ts again on WebAssembly).
 */
export const sharedServer = async (t: TestContext, kind: DatabaseKind): Promise<SharedServer> => {
  if (underTapRunner() && serverEngine === DEFAULT_SERVER_ENGINE) {
    const url = (await sharedAddresses())[kind]
    if (url === undefined) throw new Error(`no shared server on ${kind}`)
    return { url }
  }
  const database = await freshDatabase(kind)
  t.teardown(database.drop)
  return startServer(t, { ...database.env, ...SHARED_SERVER_ENV })
}

/** Runs `body` once per available database, each in a subtest, against the shared server on it. */
export const forEachSharedServer = async (
  t: TestContext,
  body: (t: TestContext, server: SharedServer, kind: DatabaseKind) => Promise<void>
): Promise<void> => {
  for (const kind of databaseKinds) await t.test(kind, async (t) => body(t, await sharedServer(t, kind), kind))
}
