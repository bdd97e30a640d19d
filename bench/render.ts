/**
 * npm run bench:render — render speed and memory, printed as a Markdown table for the README.
 *
 * For each document: median and p95 of warm renders on one worker (each iteration a distinct
 * variant, so Typst's memoisation cannot replay an earlier layout), throughput with 1 worker and
 * with N (a batch of distinct variants submitted at once), and the median of the native compiler
 * of the same typst.ts release compiling the same Typst source. Peak RSS is sampled over the
 * N-worker phase after every font of the set has been loaded in every worker.
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

const planFor = (markdown: string): Plan =>
  markdown.length < 20_000 ? { iterations: 30, batch: 16 } : markdown.length < 100_000 ? { iterations: 7, batch: 4 } : { iterations: 5, batch: 4 }

const median = (values: ReadonlyArray<number>): number => quantile(values, 0.5)
const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const position = (sorted.length - 1) * q
  const low = Math.floor(position)
  const high = Math.ceil(position)
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low)
}

let peakRss = 0
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
}, 10)

let serial = 0
const render = (renderer: Renderer, doc: BenchDocument) =>
  renderer.render({ markdown: variant(doc.markdown, ++serial), templateId: doc.templateId })

const timeSequential = async (renderer: Renderer, doc: BenchDocument, iterations: number): Promise<Array<number>> => {
  await render(renderer, doc) // first use of this template and its faces
  const times: Array<number> = []
  for (let i = 0; i < iterations; i++) {
    const start = performance.now()
    await render(renderer, doc)
    times.push(performance.now() - start)
  }
  return times
}

const throughput = async (renderer: Renderer, doc: BenchDocument, batch: number): Promise<number> => {
  const start = performance.now()
  await Promise.all(Array.from({ length: batch }, () => render(renderer, doc)))
  return batch / ((performance.now() - start) / 1000)
}

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`
const ms = (value: number) => (value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`)

const workers = availableParallelism()
const docs = documents()
const one = await Renderer.create({ workers: 1, timeoutMs: 600_000 })
const native = Renderer.withEngine(await createNativeEngine(loadFonts()), one.coverage)

interface Row {
  readonly doc: BenchDocument
  readonly pages: number
  readonly median: number
  readonly p95: number
  readonly native: number
  readonly identical: boolean
  readonly one: number
  many?: number
  peakRss?: number
}

const rows: Array<Row> = []
for (const doc of docs) {
  const plan = planFor(doc.markdown)
  const times = await timeSequential(one, doc, plan.iterations)
  const nativeTimes = await timeSequential(native, doc, plan.iterations)
  const probe = variant(doc.markdown, 0)
  const [wasmResult, nativeResult] = [
    await one.render({ markdown: probe, templateId: doc.templateId }),
    await native.render({ markdown: probe, templateId: doc.templateId })
  ]
  rows.push({
    doc,
    pages: wasmResult.pageCount,
    median: median(times),
    p95: quantile(times, 0.95),
    native: median(nativeTimes),
    identical: wasmResult.sha256 === nativeResult.sha256,
    one: await throughput(one, doc, plan.batch)
  })
  process.stderr.write(`measured ${doc.name}\n`)
}
await one.close()

// The N-worker phase: load every font in every worker first, then measure throughput and the
// peak memory of each document class (a fresh pool per class, so one class's memory does not
// count against the next).
let idleRss = 0
for (const row of rows) {
  const many = await Renderer.create({ workers, timeoutMs: 600_000 })
  await Promise.all(Array.from({ length: workers * 2 }, () => many.render({ markdown: allScripts, templateId: "clean" })))
  idleRss = Math.max(idleRss, process.memoryUsage.rss())
  peakRss = 0
  row.many = await throughput(many, row.doc, planFor(row.doc.markdown).batch)
  row.peakRss = peakRss
  await many.close()
}
clearInterval(sampler)

const cpu = cpus()[0]?.model ?? "unknown CPU"
console.log(`Render benchmark, ${new Date().toISOString().slice(0, 10)}, ${cpu}, ${cpus().length} cores, Node ${process.version}, N = ${workers} workers\n`)
console.log("| document | template | pages | median (warm) | p95 (warm) | docs/s, 1 worker | docs/s, N workers | N / 1 | peak RSS, N workers | native median | WASM / native | same bytes |")
console.log("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|")
for (const row of rows) {
  const scaling = row.many! / row.one
  console.log(
    `| ${row.doc.name} | ${row.doc.templateId} | ${row.pages} | ${ms(row.median)} | ${ms(row.p95)} | ${row.one.toFixed(2)} | ${row.many!.toFixed(2)} | ${scaling.toFixed(2)}x | ${mib(row.peakRss!)} | ${ms(row.native)} | ${(row.median / row.native).toFixed(2)}x | ${row.identical ? "yes" : "NO"} |`
  )
}
console.log(`\nRSS of a warm pool of ${workers} workers with every font of the set loaded in each: ${mib(idleRss)}`)
