/**
 * npm run bench:startup [-- [--runs N] <checkout> ...] — how long the pressroom command takes to
 * start in each checkout given (default: this one, which must be built), measured in alternating
 * runs so that whatever else the machine does falls on every checkout alike:
 * - `node bin/pressroom.js --help`: wall time from spawn to exit;
 * - `pressroom serve` as npm start runs it (--single-threaded-gc, MALLOC_MMAP_THRESHOLD_), with one
 *   render worker, the embedded database in a fresh PRESSROOM_DATA_DIR and PORT=0: the time from
 *   spawn until GET /readyz answers 200, polled every 10 ms once the log names the address, and the
 *   server's resident memory (VmRSS in /proc/<pid>/status, so Linux only) at that moment.
 * A first round is not counted: it fills the page cache, and a checkout that builds when it starts
 * (as the bundle did before scripts/build.ts) builds then. Prints each run, then the medians.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { parseArgs } from "node:util"
import { packageRoot } from "../src/render/fonts/manifest.ts"
import { median } from "./stats.ts"

const { values, positionals } = parseArgs({ options: { runs: { type: "string", default: "7" } }, allowPositionals: true })
const runs = Number(values.runs)
const checkouts = (positionals.length > 0 ? positionals : [packageRoot]).map((checkout) => resolve(checkout))

interface Run {
  readonly helpMs: number
  readonly readyMs: number
  readonly rssMiB: number
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))

const help = async (checkout: string): Promise<number> => {
  const started = performance.now()
  const child = spawn(process.execPath, [join(checkout, "bin", "pressroom.js"), "--help"], { cwd: checkout, stdio: "ignore" })
  const code = await exited(child)
  if (code !== 0) throw new Error(`${checkout}: pressroom --help exited with ${code}`)
  return performance.now() - started
}

const residentMiB = (pid: number): number => {
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  if (!kib) throw new Error(`no VmRSS for process ${pid}`)
  return Number(kib[1]) / 1024
}

const serve = async (checkout: string): Promise<Pick<Run, "readyMs" | "rssMiB">> => {
  const dataDir = mkdtempSync(join(tmpdir(), "pressroom-startup-"))
  // The embedded database, whatever this shell's environment names.
  const { DATABASE_URL: _, ...inherited } = process.env
  const env = {
    ...inherited,
    PORT: "0",
    HOST: "127.0.0.1",
    PRESSROOM_RENDER_WORKERS: "1",
    PRESSROOM_DATA_DIR: dataDir,
    MALLOC_MMAP_THRESHOLD_: "131072"
  }
  const started = performance.now()
  const child = spawn(process.execPath, ["--single-threaded-gc", join(checkout, "bin", "pressroom.js"), "serve"], {
    cwd: checkout,
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  const exit = exited(child)
  try {
    let output = ""
    const url = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString()
        const match = /Listening on (http:\/\/[^\s]+)/.exec(output)
        if (match) resolve(match[1]!)
      }
      child.stdout!.on("data", onData)
      child.stderr!.on("data", onData)
      void exit.then((code) => reject(new Error(`${checkout}: the server exited with ${code} before listening:\n${output}`)))
    })
    for (;;) {
      const response = await fetch(`${url}/readyz`).catch(() => undefined)
      await response?.arrayBuffer()
      if (response?.status === 200) return { readyMs: performance.now() - started, rssMiB: residentMiB(child.pid!) }
      await sleep(10)
    }
  } finally {
    child.kill("SIGTERM")
    await exit
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const labels = new Map(
  checkouts.map((checkout) => [
    checkout,
    `${checkout} (${execFileSync("git", ["-C", checkout, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()})`
  ])
)
const results = new Map(checkouts.map((checkout) => [checkout, [] as Array<Run>]))
for (let round = 0; round <= runs; round++) {
  for (const checkout of checkouts) {
    const run = { helpMs: await help(checkout), ...(await serve(checkout)) }
    if (round === 0) continue
    results.get(checkout)!.push(run)
    console.error(
      `run ${round} ${labels.get(checkout)}: --help ${run.helpMs.toFixed(0)} ms, ready ${run.readyMs.toFixed(0)} ms, RSS ${run.rssMiB.toFixed(1)} MiB`
    )
  }
}

console.log(`\nmedians of ${runs} alternating runs\n`)
console.log("| checkout | `pressroom --help` | `pressroom serve` until /readyz is 200 | RSS then |")
console.log("|---|---:|---:|---:|")
for (const [checkout, all] of results) {
  const ms = (key: "helpMs" | "readyMs") => `${(median(all.map((run) => run[key])) / 1000).toFixed(2)} s`
  console.log(`| ${labels.get(checkout)} | ${ms("helpMs")} | ${ms("readyMs")} | ${median(all.map((run) => run.rssMiB)).toFixed(0)} MiB |`)
}
