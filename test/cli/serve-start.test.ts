/**
 * `pressroom serve` as an operator starts it (issue 39): a bad setting is refused before anything
 * starts, in one line on stderr, and a good start says where it listens, where its API reference
 * is, whether the admin API is on, which database it uses and how it renders.
 */
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t from "tap"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { childEnv } from "../helpers/child-env.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { type RunningServer, startServer } from "../helpers/server.ts"

/**
 * The bound for a refusal, 2 s: generous, since a refusal reads the environment and
 * nothing else. It bounds the process's CPU time, which Node reports at its exit, rather than the
 * wall clock, which a machine shared with other processes stretches at will.
 */
const REFUSAL_BOUND_MS = 2_000

/** Loaded into the child first: at exit it writes its CPU time, in microseconds, to file descriptor 3. */
const reportCpu = `data:text/javascript,${encodeURIComponent(
  'import { writeSync } from "node:fs"; process.on("exit", () => { const { user, system } = process.cpuUsage(); writeSync(3, String(user + system)) })'
)}`

const refuse = (env: Readonly<Record<string, string>>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string; cpuMs: number; dataDir: string }>((resolve) => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "pressroom-refused-")), "data")
    const child = spawn(process.execPath, ["--import", reportCpu, join(packageRoot, "bin", "pressroom.js"), "serve"], {
      cwd: packageRoot,
      env: childEnv({ PORT: "0", MALLOC_MMAP_THRESHOLD_: "131072", PRESSROOM_DATA_DIR: dataDir, ...env }),
      stdio: ["ignore", "pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    let cpu = ""
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk))
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk))
    child.stdio[3]!.on("data", (chunk: Buffer) => (cpu += chunk))
    // A server that starts after all is killed, and the assertions below say why the test failed.
    const kill = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.once("close", (code) => {
      clearTimeout(kill)
      resolve({ code, stdout, stderr, cpuMs: Number(cpu) / 1000, dataDir })
    })
  })

/** The server's output once it holds `text`: the start log's lines follow "Listening on", which startServer waits for. */
const outputWith = (server: RunningServer, text: string) =>
  new Promise<string>((resolve) => {
    const check = () => {
      if (!server.output().includes(text)) return
      server.process.stdout!.off("data", check)
      resolve(server.output())
    }
    server.process.stdout!.on("data", check)
    check()
  })

for (const [name, value, message] of [
  ["PRESSROOM_LINK_TTL_SECONDS", "600", "PRESSROOM_LINK_TTL_SECONDS must be from 1 to 300"],
  ["PRESSROOM_SYNC_THRESHOLD_MS", "-5", "PRESSROOM_SYNC_THRESHOLD_MS must be from 0 to 60000"],
  ["PORT", "eighty", 'PORT: Expected an integer value but received "eighty"'],
  ["PRESSROOM_RATE_LIMIT_READ_PER_MINUTE", "0", "PRESSROOM_RATE_LIMIT_READ_PER_MINUTE must be a positive integer"],
  ["PRESSROOM_RENDER_ENGINE", "gpu", "PRESSROOM_RENDER_ENGINE"],
  ["PRESSROOM_RENDER_WARM_UP", "maybe", "PRESSROOM_RENDER_WARM_UP"]
] as const) {
  t.test(`${name}=${value} is refused in one line on stderr, before anything starts`, async (t) => {
    const refused = await refuse({ [name]: value })
    t.equal(refused.code, 1, refused.stderr)
    t.equal(refused.stdout, "", "nothing on stdout")
    const lines = refused.stderr.split("\n").filter((line) => line !== "")
    t.equal(lines.length, 1, `one line: ${refused.stderr}`)
    t.match(lines[0], `pressroom serve: ${message}`)
    t.notOk(existsSync(refused.dataDir), "the data folder was not touched: no database, no key file")
    t.ok(refused.cpuMs > 0 && refused.cpuMs < REFUSAL_BOUND_MS, `refused in ${Math.round(refused.cpuMs)} ms of CPU time`)
  })
}

t.test("two bad settings: both named, still one line", async (t) => {
  const refused = await refuse({ PRESSROOM_LINK_TTL_SECONDS: "600", PRESSROOM_SWEEP_INTERVAL_MS: "1" })
  t.equal(refused.code, 1)
  t.equal(refused.stderr.trimEnd().split("\n").length, 1, refused.stderr)
  t.match(refused.stderr, "PRESSROOM_LINK_TTL_SECONDS")
  t.match(refused.stderr, "PRESSROOM_SWEEP_INTERVAL_MS must be at least 100")
})

t.test("the start log names the URL, /docs, the admin API, the database and the renderer", async (t) => {
  await forEachDatabase(t, async (t, database) => {
    // A password in the URL (PostgreSQL's trust authentication ignores it) that the log must not show.
    const env = { ...database.env }
    if (env.DATABASE_URL) {
      const url = new URL(env.DATABASE_URL)
      url.password = "start-log-secret"
      env.DATABASE_URL = url.toString()
    }
    // With the warm-up page, as npm start runs (the suite's other servers skip it).
    const server = await startServer(t, {
      ...env,
      PRESSROOM_RENDER_ENGINE: "wasm",
      PRESSROOM_RENDER_WORKERS: "1",
      PRESSROOM_RENDER_WARM_UP: "true"
    })
    const log = await outputWith(server, "Renderer:")
    t.match(log, `Listening on ${server.url}`)
    t.match(log, `API reference: ${server.url}/docs`)
    t.match(log, "Admin API: on")
    t.match(log, "Renderer: wasm engine, 1 worker")
    t.match(log, `data folder ${server.dataDir}`)
    if (env.DATABASE_URL) {
      const url = new URL(env.DATABASE_URL)
      t.match(log, `Database: PostgreSQL at ${url.host}${url.pathname}`)
      t.notMatch(log, "start-log-secret", "no password in the log")
      // pg warned when a LISTEN was sent while another ran (src/db/pg-notifications.ts); all are sent before the server listens.
      t.notMatch(log, "DeprecationWarning", "no DeprecationWarning from pg")
    } else {
      t.match(log, `Database: PGlite in ${join(server.dataDir, "db")}`)
    }
    await server.stop()
  })
  const unadministered = await startServer(t, { PRESSROOM_ADMIN_TOKEN: "" })
  t.match(await outputWith(unadministered, "Admin API:"), "Admin API: off (set PRESSROOM_ADMIN_TOKEN to turn it on)")
})
