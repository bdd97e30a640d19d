/**
 * npm run bench:render — render speed and memory, printed as a Markdown table for the README.
 *
 * For each document, every iteration renders a distinct variant, so Typst's memoisation cannot
 * replay an earlier layout as it could not for a new user's document:
 * - N workers (a fresh pool per document, every font of the set loaded in every worker, warmed on
 *   the document): throughput as the median of three batches, and the peak RSS of that phase;
 * - 1 worker (a fresh pool, warmed): median and p95 of sequential renders, and throughput;
 * - the native compiler of the same typst.ts release, typesetting the same documents in-process:
 *   median of sequential renders, and whether its bytes equal the pool's.
 * The native phase runs last: its memory lives in this process and must not count against the pool.
 */
import { availableParallelism, cpus } from "node:os"
import { createNativeEngine } from "../src/render/engine/native.ts"
import { loadFonts } from "../src/render/fonts/manifest.ts"
import { Renderer } from "../src/render/renderer.ts"
import { allScripts, type BenchDocument, documents, variant } from "./documents.ts"

interface Plan {
  readonly iterations: number
  readonly batch: number
}

const planFor = (doc: BenchDocument): Plan =>
  doc.markdown.length < 20_000 ? { iterations: 30, batch: 24 } : doc.markdown.length < 100_000 ? { iterations: 7, batch: 4 } : { iterations: 5, batch: 4 }

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const position = (sorted.length - 1) * q
  const low = Math.floor(position)
  const high = Math.ceil(position)
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low)
}
const median = (values: ReadonlyArray<number>): number => quantile(values, 0.5)

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

/** Documents per second: the median of three batches submitted at once. */
const throughput = async (renderer: Renderer, doc: BenchDocument, batch: number): Promise<number> => {
  const rates: Array<number> = []
  for (let round = 0; round < 3; round++) {
    const start = performance.now()
    await Promise.all(Array.from({ length: batch }, () => render(renderer, doc)))
    rates.push(batch / ((performance.now() - start) / 1000))
  }
  return median(rates)
}

const warmPool = async (workers: number, doc: BenchDocument, allFonts: boolean): Promise<Renderer> => {
  const renderer = await Renderer.create({ workers, timeoutMs: 600_000 })
  if (allFonts) await Promise.all(Array.from({ length: workers * 2 }, () => renderer.render({ markdown: allScripts, templateId: "clean" })))
  await Promise.all(Array.from({ length: workers }, () => render(renderer, doc)))
  return renderer
}

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`
const ms = (value: number) => (value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`)

const workers = availableParallelism()
const docs = documents()

interface Row {
  readonly doc: BenchDocument
  pages?: number
  median?: number
  p95?: number
  one?: number
  many?: number
  peakRss?: number
  native?: number
  identical?: boolean
}
const rows: Array<Row> = docs.map((doc) => ({ doc }))

let idleRss = 0
for (const row of rows) {
  const pool = await warmPool(workers, row.doc, true)
  idleRss = Math.max(idleRss, process.memoryUsage.rss())
  peakRss = 0
  row.many = await throughput(pool, row.doc, planFor(row.doc).batch)
  row.peakRss = peakRss
  await pool.close()
  process.stderr.write(`${row.doc.name}: ${workers} workers\n`)
}

const probes = new Map<BenchDocument, string>()
for (const row of rows) {
  const pool = await warmPool(1, row.doc, false)
  const times = await sequential(pool, row.doc, planFor(row.doc).iterations)
  row.median = median(times)
  row.p95 = quantile(times, 0.95)
  row.one = await throughput(pool, row.doc, planFor(row.doc).batch)
  const probe = await pool.render({ markdown: variant(row.doc.markdown, 0), templateId: row.doc.templateId })
  row.pages = probe.pageCount
  probes.set(row.doc, probe.sha256)
  await pool.close()
  process.stderr.write(`${row.doc.name}: 1 worker\n`)
}

const coverage = await Renderer.create({ workers: 1, timeoutMs: 600_000 })
const native = Renderer.withEngine(await createNativeEngine(loadFonts()), coverage.coverage)
await coverage.close()
for (const row of rows) {
  row.native = median(await sequential(native, row.doc, planFor(row.doc).iterations))
  const probe = await native.render({ markdown: variant(row.doc.markdown, 0), templateId: row.doc.templateId })
  row.identical = probe.sha256 === probes.get(row.doc)
  process.stderr.write(`${row.doc.name}: native\n`)
}
clearInterval(sampler)

const cpu = cpus()[0]?.model ?? "unknown CPU"
console.log(`Render benchmark, ${new Date().toISOString().slice(0, 10)}, ${cpu}, ${cpus().length} cores, Node ${process.version}, N = ${workers} workers\n`)
console.log("| document | template | pages | median (warm) | p95 (warm) | docs/s, 1 worker | docs/s, N workers | N / 1 | peak RSS, N workers | native median | WASM / native | same bytes |")
console.log("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|")
for (const row of rows) {
  console.log(
    `| ${row.doc.name} | ${row.doc.templateId} | ${row.pages} | ${ms(row.median!)} | ${ms(row.p95!)} | ${row.one!.toFixed(2)} | ${row.many!.toFixed(2)} | ${(row.many! / row.one!).toFixed(2)}x | ${mib(row.peakRss!)} | ${ms(row.native!)} | ${(row.median! / row.native!).toFixed(2)}x | ${row.identical ? "yes" : "NO"} |`
  )
}
console.log(`\nRSS of a warm pool of ${workers} workers with every font of the set loaded in each: ${mib(idleRss)}`)
