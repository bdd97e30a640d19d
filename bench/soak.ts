/**
 * npm run bench:soak — whether a server's memory stays bounded under a long mixed load, for each
 * engine (PRESSROOM_RENDER_ENGINE). For each engine: a fresh server process on PGlite (as `npm
 * start` gives it) with the default worker count, an admin-plan account, rate limits out of the
 * way; then v1 conversions (the PDF in the answer) at concurrency 4:
 * - warm-up: each of the five benchmark documents in each of the twelve locales, once per worker;
 * - load: 1,000 distinct documents (a variant each), cycling through the same 60 pairs.
 * RSS is that of the server's whole process tree (the process with its worker threads, and the
 * native engine's child processes), read from /proc: at start, after the warm-up, every 100
 * documents, and at the end. Target: at the end within 10% of the post-warm-up level. Prints a
 * Markdown table for docs/performance.md (render deadline 10 minutes: a slow machine must not fail a
 * long document here); `PRESSROOM_BENCH_ENGINES=native` runs one engine.
 */
import { availableParallelism, cpus } from "node:os"
import { LOCALES } from "../src/render/locales.ts"
import { createAccount } from "../test/helpers/api.ts"
import { freshDatabase } from "../test/helpers/database.ts"
import { type RunningServer, startServer } from "../test/helpers/server.ts"
import { documents, variant } from "./documents.ts"
import { treeRss } from "./rss.ts"

const CONCURRENCY = 4
const DOCUMENTS = 1_000
const SAMPLE_EVERY = 100
const workers = availableParallelism()
const engines = (process.env.PRESSROOM_BENCH_ENGINES ?? "wasm,native").split(",")
const pairs = documents().flatMap((doc) => LOCALES.map((locale) => ({ doc, locale })))

const convert = async (server: RunningServer, key: string, pair: (typeof pairs)[number], k: number): Promise<void> => {
  const response = await fetch(`${server.url}/api/v1/convert`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ markdown: variant(pair.doc.markdown, k), templateId: pair.doc.templateId, locale: pair.locale })
  })
  const body = await response.arrayBuffer()
  if (response.status !== 200)
    throw new Error(`${pair.doc.name} (${pair.locale}): ${response.status} ${Buffer.from(body).toString().slice(0, 300)}`)
}

/** Calls `send(0)` … `send(count - 1)` with CONCURRENCY in flight; `after(n)` runs as the n-th ends. */
const drive = async (count: number, send: (i: number) => Promise<void>, after: (done: number) => void = () => {}) => {
  let next = 0
  let done = 0
  const lane = async () => {
    while (next < count) {
      await send(next++)
      after(++done)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, lane))
}

const replacements = async (server: RunningServer): Promise<string> => {
  const text = await (await fetch(`${server.url}/metrics`)).text()
  const counts = [...text.matchAll(/^pressroom_render_worker_replacements_total\{reason="(\w+)"\} (\d+)$/gm)]
    .filter((match) => match[2] !== "0")
    .map((match) => `${match[1]} ${match[2]}`)
  return counts.join(", ") || "none"
}

interface Soak {
  readonly engine: string
  readonly start: number
  readonly warm: number
  readonly end: number
  readonly peak: number
  readonly series: ReadonlyArray<number>
  readonly seconds: number
  readonly replaced: string
}

const soak = async (engine: string): Promise<Soak> => {
  const database = await freshDatabase("pglite")
  const unlimited = "10000000"
  const server = await startServer(undefined, {
    ...database.env,
    PRESSROOM_RENDER_ENGINE: engine,
    PRESSROOM_RENDER_WORKERS: String(workers),
    // Memory is measured here, not time: a long document slowed by a busy machine must not fail.
    PRESSROOM_RENDER_TIMEOUT_MS: "600000",
    PRESSROOM_RATE_LIMIT_CONVERT_PER_MINUTE: unlimited
  })
  try {
    const pid = server.process.pid!
    let peak = 0
    const sampler = setInterval(() => {
      peak = Math.max(peak, treeRss(pid))
    }, 250)
    const account = await createAccount(server, { plan: "admin" })
    const start = treeRss(pid)
    let serial = 0
    await drive(pairs.length * workers, (i) => convert(server, account.key, pairs[i % pairs.length]!, ++serial))
    const warm = treeRss(pid)
    const series: Array<number> = []
    const began = performance.now()
    await drive(
      DOCUMENTS,
      (i) => convert(server, account.key, pairs[i % pairs.length]!, ++serial),
      (done) => {
        if (done % SAMPLE_EVERY === 0) series.push(treeRss(pid))
      }
    )
    const seconds = (performance.now() - began) / 1000
    clearInterval(sampler)
    process.stderr.write(`${engine}: ${DOCUMENTS} documents in ${seconds.toFixed(0)} s\n`)
    return { engine, start, warm, end: treeRss(pid), peak, series, seconds, replaced: await replacements(server) }
  } finally {
    await server.stop()
    await database.drop()
  }
}

const results: Array<Soak> = []
for (const engine of engines) results.push(await soak(engine))

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`
console.log(
  `\n${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "cpu"}, ${workers} cores, ${workers} render workers, Node ${process.version}, PGlite\n`
)
console.log("| engine | RSS at start | after warm-up | at the end | end / warm-up | peak | 1,000 documents in | workers replaced |")
console.log("|---|--:|--:|--:|--:|--:|--:|---|")
for (const r of results) {
  console.log(
    `| ${r.engine} | ${mib(r.start)} | ${mib(r.warm)} | ${mib(r.end)} | ${(r.end / r.warm).toFixed(2)} | ${mib(r.peak)} | ${r.seconds.toFixed(0)} s | ${r.replaced} |`
  )
}
console.log(`\nRSS every ${SAMPLE_EVERY} documents:\n`)
for (const r of results) console.log(`- ${r.engine}: ${r.series.map(mib).join(", ")}`)
