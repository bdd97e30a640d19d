/**
 * npm run bench:compare — Pressroom against the browser route that Gotenberg and md-to-pdf take
 * (issue 43), on the two documents the speed issue measures: bench/fixtures/resume.md (two pages
 * with `resume`) and bench/fixtures/report.md (23 pages with `clean`). Prints a Markdown table of
 * the median time of one document, Markdown to the whole PDF, with its ratio to the browser's.
 *
 * - Warm Chromium: the Markdown through marked into a minimal HTML page (PAGE_HEAD), then
 *   page.setContent until "load" and page.pdf on A4 with 20 mm margins, all three timed. One
 *   browser and one page stay open throughout, as in a converter that keeps its browser warm, so
 *   that no launch is counted against it. The page asks for Noto Sans; where the system has no
 *   such face, Chromium lays the text out in fontconfig's sans-serif instead.
 * - Pressroom library: a Renderer of one worker of each engine, in this process.
 * - Pressroom v1 convert over HTTP: `pressroom serve` with one render worker of each engine on a
 *   fresh PGlite database, an admin-plan account (no unit runs out) and the convert rate limit out
 *   of the way; sequential POST /api/v1/convert, timed until the whole PDF is read. HTTP minus
 *   library is what the platform adds: authentication, admission, the supervisor, storage, the answer.
 *
 * Every conversion is of a distinct variant of the document (bench/documents.ts), so that neither
 * Typst's memoisation nor any cache replays an earlier one: WARM_UPS conversions, then the median
 * of 15. The warm-up is the same for every row: twenty, not the two of the description this
 * comparator follows, because a server's JavaScript is still being compiled by V8 over its first
 * requests (a résumé's v1 convert took a median of 42 ms over requests 5 to 19 of a fresh server, and
 * 26 ms over requests 5 to 200 with the CPU profiler on), and the browser, kept open, is measured as warm.
 * The phases run one at a time, each alone on the machine: the browser is closed before Pressroom
 * renders, and each renderer and server is stopped before the next phase starts.
 */
import { readFileSync } from "node:fs"
import { cpus } from "node:os"
import { join } from "node:path"
import { marked } from "marked"
import { packageRoot } from "../src/render/fonts/manifest.ts"
import { type RenderEngine, Renderer } from "../src/render/renderer.ts"
import { createAccount } from "../test/helpers/api.ts"
import { startChromium } from "../test/helpers/browser.ts"
import { freshDatabase } from "../test/helpers/database.ts"
import { startServer } from "../test/helpers/server.ts"
import { type BenchDocument, variant } from "./documents.ts"
import { median } from "./stats.ts"

const fixture = (name: string, file: string, templateId: BenchDocument["templateId"]): BenchDocument => ({
  name,
  templateId,
  markdown: readFileSync(join(packageRoot, "bench", "fixtures", file), "utf8")
})

const docs = [fixture("two-page résumé", "resume.md", "resume"), fixture("23-page report", "report.md", "clean")]
const engines: ReadonlyArray<RenderEngine> = ["wasm", "native"]

const WARM_UPS = 20
const ITERATIONS = 15

let serial = 0

/** The median time of `convert` on distinct variants of `doc`, after the warm-ups; the variant is made outside the timing. */
const timed = async (doc: BenchDocument, convert: (markdown: string) => Promise<unknown>): Promise<number> => {
  for (let i = 0; i < WARM_UPS; i++) await convert(variant(doc.markdown, ++serial))
  const times: Array<number> = []
  for (let i = 0; i < ITERATIONS; i++) {
    const markdown = variant(doc.markdown, ++serial)
    const start = performance.now()
    await convert(markdown)
    times.push(performance.now() - start)
  }
  return median(times)
}

/** Each document's median, measured one document after the other. */
const eachDocument = async (convert: (doc: BenchDocument, markdown: string) => Promise<unknown>): Promise<Array<number>> => {
  const medians: Array<number> = []
  for (const doc of docs) medians.push(await timed(doc, (markdown) => convert(doc, markdown)))
  return medians
}

const PAGE_HEAD =
  '<!doctype html><html><head><meta charset="utf-8"><style>' +
  "body{font-family:'Noto Sans',sans-serif;font-size:11pt;margin:0}table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 6px}" +
  "</style></head><body>"

const browserPhase = async (): Promise<{ version: string; medians: Array<number> }> => {
  const browser = await startChromium()
  try {
    const page = await browser.newPage()
    const medians = await eachDocument(async (_doc, markdown) => {
      await page.setContent(`${PAGE_HEAD}${marked.parse(markdown, { async: false })}</body></html>`, { waitUntil: "load" })
      return page.pdf({ format: "A4", margin: { top: "20mm", right: "20mm", bottom: "20mm", left: "20mm" } })
    })
    return { version: browser.version(), medians }
  } finally {
    await browser.close()
  }
}

const libraryPhase = async (engine: RenderEngine): Promise<Array<number>> => {
  const renderer = await Renderer.create({ workers: 1, engine })
  try {
    return await eachDocument((doc, markdown) => renderer.render({ markdown, templateId: doc.templateId }))
  } finally {
    await renderer.close()
  }
}

const httpPhase = async (engine: RenderEngine): Promise<Array<number>> => {
  const database = await freshDatabase("pglite")
  try {
    const server = await startServer(undefined, {
      ...database.env,
      PRESSROOM_RENDER_ENGINE: engine,
      PRESSROOM_RENDER_WORKERS: "1",
      PRESSROOM_RATE_LIMIT_CONVERT_PER_MINUTE: "100000"
    })
    try {
      const { key } = await createAccount(server, { plan: "admin" })
      return await eachDocument(async (doc, markdown) => {
        const response = await fetch(`${server.url}/api/v1/convert`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ markdown, templateId: doc.templateId })
        })
        const body = await response.arrayBuffer()
        if (response.status !== 200) throw new Error(`v1 convert of the ${doc.name} answered ${response.status}: ${Buffer.from(body)}`)
      })
    } finally {
      await server.stop()
    }
  } finally {
    await database.drop()
  }
}

const browser = await browserPhase()
const library = new Map<RenderEngine, Array<number>>()
for (const engine of engines) library.set(engine, await libraryPhase(engine))
const http = new Map<RenderEngine, Array<number>>()
for (const engine of engines) http.set(engine, await httpPhase(engine))

const cell = (value: number, index: number) => `${Math.round(value)} ms (${(value / browser.medians[index]!).toFixed(2)}x)`
const row = (what: string, engine: string, medians: ReadonlyArray<number>) => `| ${what} | ${engine} | ${medians.map(cell).join(" | ")} |`

console.log(
  `Browser comparison, ${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "unknown CPU"}, ${cpus().length} cores, Node ${process.version}, Chromium ${browser.version}; median of ${ITERATIONS} after ${WARM_UPS} warm-ups\n`
)
console.log(`| what | engine | ${docs.map((doc) => `${doc.name} (\`${doc.templateId}\`)`).join(" | ")} |`)
console.log(`|---|---|${docs.map(() => "--:").join("|")}|`)
console.log(row("Warm Chromium (marked, setContent, pdf)", "", browser.medians))
for (const engine of engines) console.log(row("Pressroom library", engine, library.get(engine)!))
for (const engine of engines) console.log(row("Pressroom v1 convert over HTTP", engine, http.get(engine)!))
console.log("\nHTTP minus library (what the platform adds):")
for (const engine of engines) {
  const overheads = docs.map((doc, i) => {
    const added = Math.round(http.get(engine)![i]! - library.get(engine)![i]!)
    return `${doc.name} ${added >= 0 ? "+" : ""}${added} ms`
  })
  console.log(`- ${engine}: ${overheads.join(", ")}`)
}
