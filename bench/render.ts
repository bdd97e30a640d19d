/**
 * npm run bench:render — render speed and memory, printed as a Markdown table for docs/performance.md (the README keeps a summary).
 *
 * For each document, every iteration renders a distinct variant, so Typst's memoisation cannot
 * replay an earlier layout as it could not for a new user's document:
 * - N workers (a fresh pool per document, warmed on the document): throughput as the median of
 *   three rounds, and the peak RSS of that phase;
 * - 1 worker (a fresh pool, warmed): median and p95 of sequential renders, and throughput;
 * - N workers again, after every font of the set has been loaded in every worker (as a server
 *   whose users write in every script): throughput and peak RSS;
 * - the native compiler of the same typst.ts release, typesetting the same documents in-process:
 *   median of sequential renders, and whether its bytes equal the pool's;
 * - the same native compiler in one process, then in two processes started together: what two
 *   cores of this machine give the document when nothing is shared but the hardware, a reference
 *   for N / 1 (as noisy as the machine; the two processes' measuring windows overlap, not match).
 * In the first two, every font of the set is available and workers load a face when a document
 * first uses it.
 * Each pool phase runs in a child process of its own, so that its RSS is its alone (memory of
 * a closed pool is not always returned to the system), as do the native throughput phases; the
 * native median runs in this process.
 */
import { spawn } from "node:child_process"
import { availableParallelism, cpus } from "node:os"
import { fileURLToPath } from "node:url"
import { DEFAULT_WORKER_MEMORY_MIB, Renderer } from "../src/render/renderer.ts"
import { allScripts, type BenchDocument, documents, variant } from "./documents.ts"
import { median, quantile } from "./stats.ts"

interface Plan {
  readonly iterations: number
  /** The fewest documents a throughput round finishes. */
  readonly roundMinimum: number
}

const planFor = (doc: BenchDocument): Plan =>
  doc.markdown.length < 20_000
    ? { iterations: 30, roundMinimum: 24 }
    : doc.markdown.length < 100_000
      ? { iterations: 7, roundMinimum: 4 }
      : { iterations: 5, roundMinimum: 4 }

let peakRss = 0
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
}, 10)

let serial = 0
const render = (renderer: Renderer, doc: BenchDocument) =>
  renderer.render({ markdown: variant(doc.markdown, ++serial), templateId: doc.templateId })

const sequential = async (renderer: Renderer, doc: BenchDocument, iterations: number): Promise<Array<number>> => {
  await render(renderer, doc) // first use of this template and its faces
  const times: Array<number> = []
  for (let i = 0; i < iterations; i++) {
    const start = performance.now()
    await render(renderer, doc)
    times.push(performance.now() - start)
  }
  return times
}

/**
 * Documents per second: the median of three rounds. A round keeps two documents per worker in
 * flight until it has finished at least `roundMinimum` documents and run for at least 3 s, so that a
 * worker replaced past its memory threshold (a start-up of a few hundred milliseconds) weighs in
 * every round as it does in a server, rather than ruining one short batch and sparing another.
 */
const throughput = async (renderer: Renderer, doc: BenchDocument, roundMinimum: number, inFlight: number): Promise<number> => {
  const rates: Array<number> = []
  for (let round = 0; round < 3; round++) {
    const start = performance.now()
    let done = 0
    const lane = async () => {
      while (done < roundMinimum || performance.now() - start < 3_000) {
        await render(renderer, doc)
        done++
      }
    }
    await Promise.all(Array.from({ length: inFlight }, lane))
    rates.push(done / ((performance.now() - start) / 1000))
  }
  return median(rates)
}

/**
 * A pool in its steady state. V8 first runs the 28 MB WebAssembly module as baseline code and
 * recompiles hot functions with its optimising compiler on background threads for a while; until
 * that settles it competes with the workers for the cores. A server reaches that state after its
 * first minutes; the benchmark renders the document for WARM_UP_MS before it measures.
 */
const WARM_UP_MS = 8_000

/** The recycle threshold, as the server reads it: `PRESSROOM_RENDER_WORKER_MEMORY_MB=128 npm run bench:render`. */
const workerMemoryMiB = Number(process.env.PRESSROOM_RENDER_WORKER_MEMORY_MB ?? DEFAULT_WORKER_MEMORY_MIB)
const warmPool = async (workers: number, doc: BenchDocument, everyFont: boolean): Promise<Renderer> => {
  const renderer = await Renderer.create({ workers, timeoutMs: 600_000, workerMemoryMiB })
  if (everyFont)
    await Promise.all(Array.from({ length: workers * 2 }, () => renderer.render({ markdown: allScripts, templateId: "clean" })))
  const start = performance.now()
  do await Promise.all(Array.from({ length: workers * 2 }, () => render(renderer, doc)))
  while (performance.now() - start < WARM_UP_MS)
  return renderer
}

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`
const ms = (value: number) => (value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`)

const workers = availableParallelism()
const docs = documents()

interface PoolPhase {
  readonly rate: number
  readonly peakRss: number
  readonly idleRss: number
  readonly median?: number
  readonly p95?: number
  readonly pages?: number
  readonly sha256?: string
}

type PhaseKind = "many" | "one" | "every-font" | "native"

/** The native engine, one worker process: its renders cost what they cost a server, the child process included. */
const nativeRenderer = (): Promise<Renderer> => Renderer.create({ engine: "native", workers: 1, timeoutMs: 600_000 })

/** The native compiler's throughput in this (child) process, after the same warm-up as a pool. */
const runNativePhase = async (doc: BenchDocument): Promise<PoolPhase> => {
  const native = await nativeRenderer()
  const start = performance.now()
  do await render(native, doc)
  while (performance.now() - start < WARM_UP_MS)
  return { rate: await throughput(native, doc, planFor(doc).roundMinimum, 1), peakRss, idleRss: 0 }
}

/** One phase, in this (child) process: `--phase many|one|every-font|native <document index>`. */
const runPhase = async (kind: PhaseKind, doc: BenchDocument): Promise<PoolPhase> => {
  if (kind === "native") return runNativePhase(doc)
  const size = kind === "one" ? 1 : workers
  const pool = await warmPool(size, doc, kind === "every-font")
  const idleRss = process.memoryUsage.rss()
  peakRss = idleRss
  const timing = kind === "one" ? await sequential(pool, doc, planFor(doc).iterations) : undefined
  const rate = await throughput(pool, doc, planFor(doc).roundMinimum, size * 2)
  const probe = await pool.render({ markdown: variant(doc.markdown, 0), templateId: doc.templateId })
  await pool.close()
  return {
    rate,
    peakRss,
    idleRss,
    ...(timing ? { median: median(timing), p95: quantile(timing, 0.95) } : {}),
    pages: probe.pageCount,
    sha256: probe.sha256
  }
}

const phaseFlag = process.argv.indexOf("--phase")
if (phaseFlag >= 0) {
  const kind = process.argv[phaseFlag + 1] as PhaseKind
  const result = await runPhase(kind, docs[Number(process.argv[phaseFlag + 2])]!)
  clearInterval(sampler)
  console.log(JSON.stringify(result))
  process.exit(0)
}

/** Runs a phase in a child process; its stderr (progress, traces) passes straight through. */
const phase = (kind: PhaseKind, index: number): Promise<PoolPhase> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--phase", kind, String(index)], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.on("error", reject)
    // "close", not "exit": stdout may still hold the result when the process exits.
    child.on("close", (code) =>
      code === 0
        ? resolve(JSON.parse(stdout.trim().split("\n").pop()!) as PoolPhase)
        : reject(new Error(`phase ${kind} of document ${index} exited with ${code}`))
    )
  })

interface Row {
  readonly doc: BenchDocument
  readonly many: PoolPhase
  readonly one: PoolPhase
  readonly everyFont: PoolPhase
  /** Native throughput of two processes at once over one process alone. */
  readonly nativePair: number
  native?: number
  identical?: boolean
}

const rows: Array<Row> = []
for (const [index, doc] of docs.entries()) {
  const many = await phase("many", index)
  const one = await phase("one", index)
  const everyFont = await phase("every-font", index)
  const alone = await phase("native", index)
  const pair = await Promise.all([phase("native", index), phase("native", index)])
  process.stderr.write(`${doc.name}: pools measured\n`)
  rows.push({ doc, many, one, everyFont, nativePair: (pair[0].rate + pair[1].rate) / alone.rate })
}

const native = await nativeRenderer()
for (const row of rows) {
  row.native = median(await sequential(native, row.doc, planFor(row.doc).iterations))
  const probe = await native.render({ markdown: variant(row.doc.markdown, 0), templateId: row.doc.templateId })
  row.identical = [row.one, row.many, row.everyFont].every((phase) => phase.sha256 === probe.sha256)
  process.stderr.write(`${row.doc.name}: native\n`)
}
clearInterval(sampler)

const cpu = cpus()[0]?.model ?? "unknown CPU"
console.log(
  `Render benchmark, ${new Date().toISOString().slice(0, 10)}, ${cpu}, ${cpus().length} cores, Node ${process.version}, N = ${workers} workers replaced past ${workerMemoryMiB} MiB\n`
)
console.log(
  "| document | template | pages | median (warm) | p95 (warm) | docs/s, 1 worker | docs/s, N workers | N / 1 | native, 2 processes / 1 | peak RSS, N workers | every font loaded: docs/s, N workers | every font loaded: peak RSS | native median | WASM / native | same bytes |"
)
console.log("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|")
for (const row of rows) {
  const { doc, one, many, everyFont } = row
  console.log(
    `| ${doc.name} | ${doc.templateId} | ${one.pages} | ${ms(one.median!)} | ${ms(one.p95!)} | ${one.rate.toFixed(2)} | ${many.rate.toFixed(2)} | ${(many.rate / one.rate).toFixed(2)}x | ${row.nativePair.toFixed(2)}x | ${mib(many.peakRss)} | ${everyFont.rate.toFixed(2)} | ${mib(everyFont.peakRss)} | ${ms(row.native!)} | ${(one.median! / row.native!).toFixed(2)}x | ${row.identical ? "yes" : "NO"} |`
  )
}
const lowest = rows.reduce((a, b) => (b.many.idleRss < a.many.idleRss ? b : a))
const highest = rows.reduce((a, b) => (b.everyFont.idleRss > a.everyFont.idleRss ? b : a))
console.log(
  `\nRSS of a warm pool of ${workers} workers, warmed up: ${mib(lowest.many.idleRss)} at the lowest (warmed on the ${lowest.doc.name}); with every font of the set loaded in each: ${mib(highest.everyFont.idleRss)} at the highest (warmed on the ${highest.doc.name})`
)
