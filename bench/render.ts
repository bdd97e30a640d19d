/**
 * npm run bench:render — render speed and memory of both engines side by side on the same documents,
 * printed as a Markdown table for docs/performance.md (the README keeps a summary).
 *
 * For each document, every iteration renders a distinct variant, so Typst's memoisation cannot
 * replay an earlier layout as it could not for a new user's document. For each engine (`wasm`,
 * the WebAssembly compiler in worker threads; `native`, the native compiler in child processes):
 * - N workers (a fresh pool per document, warmed on the document): throughput as the median of
 *   three rounds, and the peak RSS of that phase;
 * - 1 worker (a fresh pool, warmed): median and p95 of sequential renders, and throughput;
 * and for `wasm`, N workers again after every font of the set has been loaded in every worker (as
 * a server whose users write in every script): throughput and peak RSS. Every font of the set is
 * available otherwise too; a worker loads a face when a document first uses it.
 * Each phase runs in a child process of its own, so that its RSS is its alone (memory of a closed
 * pool is not always returned to the system); RSS counts the native engine's worker processes.
 * "Same bytes" says whether every phase of both engines produced the same PDF for the document.
 */
import { spawn } from "node:child_process"
import { availableParallelism, cpus } from "node:os"
import { fileURLToPath } from "node:url"
import { DEFAULT_WORKER_MEMORY_MIB } from "../src/render/engine/pool.ts"
import { type RenderEngine, Renderer } from "../src/render/renderer.ts"
import { allScripts, type BenchDocument, documents, variant } from "./documents.ts"
import { treeRss } from "./rss.ts"
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

/** RSS of this process and its children (a native pool's workers); /proc is read every 50 ms. */
const rss = () => treeRss(process.pid)
let peakRss = 0
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, rss())
}, 50)

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
const warmPool = async (engine: RenderEngine, workers: number, doc: BenchDocument, everyFont: boolean): Promise<Renderer> => {
  const renderer = await Renderer.create({ engine, workers, timeoutMs: 600_000, workerMemoryMiB })
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

type PhaseKind = "many" | "one" | "every-font"

/** One phase, in this (child) process: `--phase many|one|every-font wasm|native <document index>`. */
const runPhase = async (kind: PhaseKind, engine: RenderEngine, doc: BenchDocument): Promise<PoolPhase> => {
  const size = kind === "one" ? 1 : workers
  const pool = await warmPool(engine, size, doc, kind === "every-font")
  const idleRss = rss()
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
  const [kind, engine, index] = process.argv.slice(phaseFlag + 1)
  const result = await runPhase(kind as PhaseKind, engine as RenderEngine, docs[Number(index)]!)
  clearInterval(sampler)
  console.log(JSON.stringify(result))
  process.exit(0)
}

/** Runs a phase in a child process; its stderr (progress, traces) passes straight through. */
const phase = (kind: PhaseKind, engine: RenderEngine, index: number): Promise<PoolPhase> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--phase", kind, engine, String(index)], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.on("error", reject)
    // "close", not "exit": stdout may still hold the result when the process exits.
    child.on("close", (code) =>
      code === 0
        ? resolve(JSON.parse(stdout.trim().split("\n").pop()!) as PoolPhase)
        : reject(new Error(`phase ${kind} (${engine}) of document ${index} exited with ${code}`))
    )
  })

interface EnginePhases {
  readonly many: PoolPhase
  readonly one: PoolPhase
}

interface Row {
  readonly doc: BenchDocument
  readonly wasm: EnginePhases
  readonly native: EnginePhases
  readonly everyFont: PoolPhase
}

const rows: Array<Row> = []
for (const [index, doc] of docs.entries()) {
  const measure = async (engine: RenderEngine): Promise<EnginePhases> => ({
    many: await phase("many", engine, index),
    one: await phase("one", engine, index)
  })
  const wasm = await measure("wasm")
  const everyFont = await phase("every-font", "wasm", index)
  const native = await measure("native")
  process.stderr.write(`${doc.name}: measured\n`)
  rows.push({ doc, wasm, native, everyFont })
}
clearInterval(sampler)

const cpu = cpus()[0]?.model ?? "unknown CPU"
console.log(
  `Render benchmark, ${new Date().toISOString().slice(0, 10)}, ${cpu}, ${cpus().length} cores, Node ${process.version}, N = ${workers} workers replaced past ${workerMemoryMiB} MiB\n`
)
console.log(
  "| document | template | pages | engine | median (warm) | p95 (warm) | native / WASM | docs/s, 1 worker | docs/s, N workers | N / 1 | peak RSS, N workers | every font loaded: docs/s, N workers | every font loaded: peak RSS | same bytes |"
)
console.log("|---|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|")
for (const { doc, wasm, native, everyFont } of rows) {
  const identical = [wasm.many, wasm.one, native.many, native.one, everyFont].every((phase) => phase.sha256 === wasm.one.sha256)
  for (const [engine, { one, many }] of [
    ["WASM", wasm],
    ["native", native]
  ] as const) {
    const first = engine === "WASM"
    console.log(
      `| ${first ? doc.name : ""} | ${first ? doc.templateId : ""} | ${first ? one.pages : ""} | ${engine} | ${ms(one.median!)} | ${ms(one.p95!)} | ${first ? "" : `${(one.median! / wasm.one.median!).toFixed(2)}x`} | ${one.rate.toFixed(2)} | ${many.rate.toFixed(2)} | ${(many.rate / one.rate).toFixed(2)}x | ${mib(many.peakRss)} | ${first ? everyFont.rate.toFixed(2) : ""} | ${first ? mib(everyFont.peakRss) : ""} | ${first ? (identical ? "yes" : "NO") : ""} |`
    )
  }
}
const idle = (engine: "wasm" | "native") => Math.min(...rows.map((row) => row[engine].many.idleRss))
const highest = rows.reduce((a, b) => (b.everyFont.idleRss > a.everyFont.idleRss ? b : a))
console.log(
  `\nRSS of a warm pool of ${workers} workers, warmed up, at the lowest: WASM ${mib(idle("wasm"))}, native ${mib(idle("native"))} (its worker processes included); WASM with every font of the set loaded in each: ${mib(highest.everyFont.idleRss)} at the highest (warmed on the ${highest.doc.name})`
)
