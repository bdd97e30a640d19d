/**
 * The daemon of shared-server.ts: `node --import=tsx shared-server-daemon.ts <tap runner pid>`.
 * Starts a server on each database of the run and writes their addresses (or why they did not
 * start, for every file waiting on them); when the runner's process is gone, stops them, drops
 * their databases and removes the run's folder.
 */
import { renameSync, rmSync, writeFileSync } from "node:fs"
import { databaseKinds, freshDatabase } from "./database.ts"
import { type RunningServer, startServer } from "./server.ts"
import { DEFAULT_SERVER_ENGINE } from "./render.ts"
import { SHARED_SERVER_ENV, sharedServersFolder } from "./shared-server.ts"

const runnerPid = Number(process.argv[2])
const files = sharedServersFolder(runnerPid)
const started: Array<{ server?: RunningServer; readonly drop: () => Promise<void> }> = []

const stopServers = () =>
  Promise.allSettled(
    started.map(async ({ server, drop }) => {
      await server?.stop()
      await drop()
    })
  )

const runnerAlive = () => {
  try {
    process.kill(runnerPid, 0)
    return true
  } catch {
    return false
  }
}

try {
  const addresses = await Promise.all(
    databaseKinds.map(async (kind) => {
      const database = await freshDatabase(kind)
      const entry: (typeof started)[number] = { drop: database.drop }
      started.push(entry)
      entry.server = await startServer(undefined, {
        ...database.env,
        ...SHARED_SERVER_ENV,
        // The default, whatever the environment of the file that started this daemon says (a file
        // run again on another engine sets it for itself).
        PRESSROOM_RENDER_ENGINE: DEFAULT_SERVER_ENGINE
      })
      return [kind, entry.server.url] as const
    })
  )
  writeFileSync(`${files.servers}.partial`, JSON.stringify(Object.fromEntries(addresses)))
  renameSync(`${files.servers}.partial`, files.servers)
} catch (error) {
  writeFileSync(files.failure, error instanceof Error ? (error.stack ?? error.message) : String(error))
  await stopServers()
}

const end = async () => {
  await stopServers()
  rmSync(files.folder, { recursive: true, force: true })
  process.exit(0)
}
process.on("SIGTERM", () => void end())
setInterval(() => {
  if (!runnerAlive()) void end()
}, 500)
