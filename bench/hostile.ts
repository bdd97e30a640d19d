/**
 * npm run bench:hostile — what each pathological input (test/fixtures/pathological.ts) costs a
 * render: the median time and the peak RSS over the warm level, first with one worker busy on it and
 * the other idle, then with both workers given it at once. Printed as a Markdown table.
 *
 * Each input runs in a child process of its own with a fresh pool of two workers and the server's
 * default deadline (30 s), so that its RSS is its alone (memory of a closed pool is not always
 * returned to the system). `HOSTILE_ITERATIONS` (default 3) sets how many renders each phase takes;
 * `HOSTILE_ONLY` measures only the inputs whose name contains it.
 */
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { cpus } from "node:os"
import { fileURLToPath } from "node:url"
import { Renderer, RenderingFailed } from "../src/render/renderer.ts"
import { pathologicalInputs } from "../test/fixtures/pathological.ts"
import { median } from "./stats.ts"

const iterations = Number(process.env.HOSTILE_ITERATIONS ?? 3)
const only = process.env.HOSTILE_ONLY ?? ""
const TIMEOUT_MS = 30_000

/** The process's resident memory, workers included (they are threads of it), as the kernel counts it. */
const rss = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1]) * 1024

interface Phase {
  readonly medianMs: number
  readonly peakOverWarm: number
  /** How the renders ended: "pdf", or the reason of rendering_failed. */
  readonly outcomes: ReadonlyArray<string>
}

interface Measured {
  readonly one: Phase
  readonly both: Phase
}

const outcomeOf = async (rendering: Promise<unknown>): Promise<string> => {
  try {
    await rendering
    return "pdf"
  } catch (error) {
    return error instanceof RenderingFailed ? error.reason : "error"
  }
}

/** `concurrent` renders of the input at once, `iterations` times, each from a warm pool. */
const measure = async (renderer: Renderer, markdown: string, concurrent: number): Promise<Phase> => {
  const times: Array<number> = []
  const outcomes: Array<string> = []
  let peakOverWarm = 0
  for (let i = 0; i < iterations; i++) {
    await Promise.all(Array.from({ length: 2 }, () => renderer.render({ markdown: "warm\n", templateId: "clean" })))
    const warm = rss()
    let peak = warm
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss())
    }, 10)
    const start = performance.now()
    const ended = await Promise.all(Array.from({ length: concurrent }, () => outcomeOf(renderer.render({ markdown, templateId: "clean" }))))
    times.push(performance.now() - start)
    clearInterval(sampler)
    peakOverWarm = Math.max(peakOverWarm, peak - warm)
    outcomes.push(...ended)
  }
  return { medianMs: median(times), peakOverWarm, outcomes }
}

const inputFlag = process.argv.indexOf("--input")
if (inputFlag >= 0) {
  const input = pathologicalInputs[Number(process.argv[inputFlag + 1])]!
  const renderer = await Renderer.create({ workers: 2, timeoutMs: TIMEOUT_MS })
  const one = await measure(renderer, input.markdown, 1)
  const both = await measure(renderer, input.markdown, 2)
  await renderer.close()
  console.log(JSON.stringify({ one, both } satisfies Measured))
  process.exit(0)
}

const measureInChild = (index: number): Promise<Measured> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--input", String(index)], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) =>
      code === 0
        ? resolve(JSON.parse(stdout.trim().split("\n").pop()!) as Measured)
        : reject(new Error(`input ${index} exited with ${code}`))
    )
  })

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`
const time = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`)
/** "pdf", "timeout", or counts when the renders ended differently ("pdf 2, timeout 1"). */
const ended = (outcomes: ReadonlyArray<string>): string => {
  const counts = new Map<string, number>()
  for (const outcome of outcomes) counts.set(outcome, (counts.get(outcome) ?? 0) + 1)
  return counts.size === 1 ? outcomes[0]! : [...counts].map(([outcome, n]) => `${outcome} ${n}`).join(", ")
}

const rows: Array<string> = []
for (const [index, input] of pathologicalInputs.entries()) {
  if (!input.name.includes(only)) continue
  const { one, both } = await measureInChild(index)
  const row = `| ${input.name} | ${input.markdown.length.toLocaleString("en")} | ${ended(one.outcomes)} | ${time(one.medianMs)} | ${mib(one.peakOverWarm)} | ${ended(both.outcomes)} | ${time(both.medianMs)} | ${mib(both.peakOverWarm)} |`
  // Progress, row by row: a run of the whole corpus takes a while.
  process.stderr.write(`${row}\n`)
  rows.push(row)
}

const cpu = cpus()[0]?.model ?? "unknown CPU"
console.log(
  `Hostile input benchmark, ${new Date().toISOString().slice(0, 10)}, ${cpu}, ${cpus().length} cores, Node ${process.version}, 2 workers, deadline ${TIMEOUT_MS / 1000} s, ${iterations} renders per phase (rendering_failed shows its reason)\n`
)
console.log("| input | characters | one busy: ended as | median | peak RSS over warm | both busy: ended as | median | peak RSS over warm |")
console.log("|---|--:|---|--:|--:|---|--:|--:|")
for (const row of rows) console.log(row)
