/**
 * Hostile documents against the compiler: one word longer than a PDF text run may be (40,000 `é`
 * or `ж`, a letter with 100,000 zero-width joiners, which made Typst's PDF export panic) renders,
 * wrapped at the margin, with nothing but its own characters in the text layer, and a run of more
 * characters than a word has is set without kerning (which made the line breaker shape it again at
 * every break it tried), while a word keeps it; a document on
 * which the compiler traps is tried once more in a fresh worker and then fails as the document's
 * fault; one that exhausts a worker's JavaScript heap fails at once. Through v1: the answer is 422
 * `rendering_failed` after one attempt, and the server's log holds neither the document's text
 * nor the compiler's panic output.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import t from "tap"
import { report as benchReport } from "../../bench/documents.ts"
import { Effect } from "effect"
import { SqlClient } from "@effect/sql"
import { readBundle } from "../../src/render/engine/bundle.ts"
import { CompileFailure, noWorkerReplacements } from "../../src/render/engine/engine.ts"
import { WasmEnginePool } from "../../src/render/engine/wasm-pool.ts"
import { TextRuns, UNKERNED_RUN } from "../../src/render/markdown/text-runs.ts"
import { packageRoot, verifyFonts } from "../../src/render/fonts/manifest.ts"
import { Renderer, RenderingFailed } from "../../src/render/renderer.ts"
import { convert, createAccount } from "../helpers/api.ts"
import { childEnv } from "../helpers/child-env.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"
import { isValidPdf, pageTexts, pdfChars, pdfText } from "../helpers/pdf.ts"
import { pathologicalInputs } from "../fixtures/pathological.ts"
import { largeReport } from "../helpers/render.ts"
import { startServer } from "../helpers/server.ts"

const MiB = 1024 * 1024

/** The process's resident memory, workers included (they are threads of it). */
const rss = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1]) * 1024

const LONG_WORDS: ReadonlyArray<[string, string]> = [
  ["40,000 é", "é".repeat(40_000)],
  ["40,000 ж", "ж".repeat(40_000)],
  ["a letter and 100,000 zero-width joiners", `a${"\u200d".repeat(100_000)}`]
]

/** Characters of the text layer that are neither white space nor in `input`. */
const foreign = (text: string, input: string): Array<string> => {
  const allowed = new Set(input)
  return [...new Set([...text].filter((c) => !/\s/u.test(c) && !allowed.has(c)))]
}

t.test("a front matter value of one long word is cut to the bound, with a warning, and renders", async (t) => {
  const renderer = await Renderer.create({ workers: 1, timeoutMs: 120_000, warmUp: false })
  t.teardown(() => renderer.close())
  const title = "é".repeat(40_000)
  const result = await renderer
    .render({ markdown: `---\ntitle: ${title}\nauthor: Ada\n---\n\nBody text.\n`, templateId: "clean" })
    .catch((error: unknown) => error)
  if (!t.ok(!(result instanceof Error), "renders", { error: String(result) })) return
  const { pdf, warnings } = result as Awaited<ReturnType<Renderer["render"]>>
  t.ok(isValidPdf(pdf), "a PDF")
  t.same(
    warnings.filter((w) => w.code === "front_matter_truncated").map((w) => w.line),
    [1],
    "one front_matter_truncated warning, at the front matter"
  )
  t.match(pageTexts(pdf).join(" "), /Body text\./, "the body is there")
})

t.test("one long word renders, wrapped, with only its own characters in the text layer", async (t) => {
  const renderer = await Renderer.create({ workers: 1, timeoutMs: 120_000, warmUp: false })
  t.teardown(() => renderer.close())
  for (const [name, markdown] of LONG_WORDS) {
    const result = await renderer.render({ markdown, templateId: "clean" }).catch((error: unknown) => error)
    if (!t.ok(!(result instanceof Error), `${name}: renders`, { error: String(result) })) continue
    const { pdf } = result as Awaited<ReturnType<Renderer["render"]>>
    t.ok(isValidPdf(pdf), `${name}: a PDF`)
    const text = pageTexts(pdf).join("\n")
    t.same(foreign(text, markdown), [], `${name}: nothing but the input's characters and line ends`)
    if (!name.includes("joiners")) {
      // Every letter is on the page: the word wraps at the margin instead of running off it.
      t.equal(text.replace(/\s/gu, ""), markdown, `${name}: every character, in order`)
    } else {
      t.match(pdfText(pdf), /a/, `${name}: the letter is there`)
    }
  }
  t.same(renderer.workerReplacements(), noWorkerReplacements, "no worker was lost")
})

t.test("a word keeps its kerning; a run of more characters than a word has is set without", async (t) => {
  // Kerning a run of data (a blob, a run of punctuation) costs the line breaker a shaping at every
  // break it tries (text-runs.ts): 100 letters are a word, 300 are not.
  const renderer = await Renderer.create({ workers: 1, timeoutMs: 120_000, warmUp: false })
  t.teardown(() => renderer.close())
  const word = "AV".repeat(50)
  const run = "AV".repeat(UNKERNED_RUN / 2 + 22)
  // Japanese is written without spaces: its paragraphs are runs of words, whose Latin words keep their kerning.
  const japanese = "日本語の文章です。".repeat(20)
  const { pdf } = await renderer.render({
    markdown: `${word}\n\n${run}\n\n${japanese}${word.slice(0, 22)}${japanese}\n`,
    templateId: "clean",
    locale: "ja"
  })
  const glyphs = pdfChars(pdf).filter((c) => c.c === "A" || c.c === "V")
  t.equal(glyphs.map((c) => c.c).join(""), word + run + word.slice(0, 22), "every letter, in order")
  // The distance across ten pairs of A and V on the first line of each paragraph.
  const pitch = (from: number): number => (glyphs[from + 20]!.x0 - glyphs[from]!.x0) / 10
  const kerned = pitch(0)
  const unkerned = pitch(word.length)
  t.ok(unkerned - kerned > 1, `A and V kerned in the word (${kerned.toFixed(2)} pt a pair), not in the run (${unkerned.toFixed(2)} pt)`)
  // A run is counted in characters as a reader counts them: 200 emoji (400 UTF-16 units) are a word's length.
  t.notMatch(new TextRuns().markup("😀".repeat(200)), /kerning/, "200 emoji keep their kerning")
  t.match(new TextRuns().markup("😀".repeat(UNKERNED_RUN + 1)), /kerning: false/, "and more than the bound do not")
  const inJapanese = pitch(word.length + run.length)
  t.ok(
    Math.abs(inJapanese - kerned) < 0.01,
    `and kerned in a Japanese paragraph of ${japanese.length * 2 + 22} characters (${inJapanese.toFixed(2)} pt)`
  )
})

t.test("a trap is tried once more in a fresh worker; a second trap is the document's fault", async (t) => {
  // A template that typesets a 40,000-letter word itself, past the converter: Typst's PDF export
  // panics on it (the krilla panic of the long-word issue), in every worker.
  const bundle = readBundle().map((file) =>
    file.path === "/templates/clean.typ" ? { ...file, text: `#let template(cfg, body) = [#("é" * 40000) #body]` } : file
  )
  const pool = new WasmEnginePool({
    size: 1,
    timeoutMs: 120_000,
    fonts: verifyFonts(),
    bundle,
    recycleAboveBytes: 256 * MiB,
    warmUp: false
  })
  t.teardown(() => pool.close())
  await pool.warm()
  const job = {
    markdown: "Short text.",
    templateId: "clean",
    options: { pageNumbers: false, bodyTextColor: null, headingTextColor: null, creativeAccent: "slate" as const },
    locale: { code: "en", lang: "en", region: null, dir: "ltr" }
  }
  const error = await pool.typeset(job).then(
    () => undefined,
    (e: unknown) => e
  )
  t.type(error, CompileFailure, "the job fails")
  t.equal((error as CompileFailure).reason, "trapped", "as the document's fault, not the service's")
  t.same(pool.workerReplacements(), { ...noWorkerReplacements, crashed: 2 }, "after exactly two tries, each in its own worker")
  const details = (error as CompileFailure).details.join("\n")
  t.match(details, /panicked at krilla-[\d.]+\/src\/text\/group\.rs:\d+:\d+/, "the diagnostic says where the compiler panicked")
  t.notMatch(details, /é/, "and quotes none of the text")
  const next = await pool.typeset({ ...job, templateId: "executive" })
  t.ok(isValidPdf(next.pdf), "the pool serves the next job")
})

t.test("a document that exhausts a worker's heap fails at once, as out_of_memory", async (t) => {
  const renderer = await Renderer.create({ workers: 1, timeoutMs: 120_000, warmUp: false, workerHeapMiB: 16 })
  t.teardown(() => renderer.close())
  const error = await renderer.render({ markdown: largeReport(), templateId: "clean" }).catch((e: unknown) => e)
  t.type(error, RenderingFailed)
  t.equal((error as RenderingFailed).reason, "out_of_memory")
  t.equal(
    (error as RenderingFailed).message,
    "the document needs more memory than a render may use: 16 MiB to read its Markdown, 512 MiB to typeset it",
    "the message names the bounds (PRESSROOM_RENDER_WORKER_HEAP_MB, PRESSROOM_RENDER_COMPILER_MEMORY_MB's default)"
  )
  t.same(renderer.workerReplacements(), { ...noWorkerReplacements, out_of_memory: 1 }, "its worker replaced once, for its heap")
  const next = await renderer.render({ markdown: "A letter.", templateId: "clean" })
  t.ok(isValidPdf(next.pdf), "the next document renders")
})

t.test(
  "the heap bound holds the conversion, not the compile: the compiler's memory grows without a full collection at each step",
  async (t) => {
    // V8 collects a thread's whole heap each time a WebAssembly memory grows past half that heap's
    // bound (src/render/engine/converter.ts): with the compiler in a 32 MiB heap, a 20-section report
    // cost 67 such collections. --trace-gc is a process's flag, so the render runs in a command.
    const dir = mkdtempSync(join(tmpdir(), "pressroom-heaps-"))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(join(dir, "report.md"), benchReport(20))
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "--trace-gc",
        join(packageRoot, "bin", "pressroom.js"),
        "render",
        join(dir, "report.md"),
        "--template",
        "clean",
        "-o",
        join(dir, "report.pdf")
      ],
      { env: childEnv({ PRESSROOM_RENDER_ENGINE: "wasm", PRESSROOM_RENDER_WORKER_HEAP_MB: "32" }), maxBuffer: 64 * MiB }
    )
    const collections = stdout.split("\n").filter((line) => line.includes("Mark-Compact"))
    t.ok(collections.length > 0, "the trace shows the process's collections")
    t.same(
      collections.filter((line) => line.includes("external memory pressure")),
      [],
      "none of them is a full collection for the compiler's memory"
    )
    t.ok(isValidPdf(readFileSync(join(dir, "report.pdf"))), "and the report renders")
  }
)

t.test(
  "a worker's memory between renders returns to its warm level after a document that took much of the conversion's heap",
  async (t) => {
    // The converter's heap keeps a document's garbage until it next collects, which an idle thread
    // does not: the worker replaces a converter that grew past 64 MiB (src/render/engine/converter.ts).
    const renderer = await Renderer.create({ workers: 1, timeoutMs: 120_000, warmUp: false })
    t.teardown(() => renderer.close())
    await renderer.render({ markdown: "A letter.", templateId: "clean" })
    const warm = rss()
    const emphasisRun = pathologicalInputs.find((input) => input.name === "emphasis run")!
    t.ok(isValidPdf((await renderer.render({ markdown: emphasisRun.markdown, templateId: "clean" })).pdf), "the emphasis run renders")
    await renderer.render({ markdown: "A letter.", templateId: "clean" })
    const grew = (rss() - warm) / MiB
    // Kept, the converter held 150 to 200 MiB of the run's garbage here.
    t.ok(grew < 64, `the process holds ${Math.round(grew)} MiB more than warm`)
    t.same(renderer.workerReplacements(), noWorkerReplacements, "with the same worker: only its converter was replaced")
  }
)

t.test("a document whose compiler memory would grow past the bound fails as the document's fault", async (t) => {
  // The render benchmark's sixty-page report needs more than 128 MiB of compiler memory; a letter far less.
  const renderer = await Renderer.create({ workers: 1, timeoutMs: 120_000, warmUp: false, compilerMemoryMiB: 128 })
  t.teardown(() => renderer.close())
  const error = await renderer.render({ markdown: benchReport(150), templateId: "clean" }).catch((e: unknown) => e)
  t.type(error, RenderingFailed)
  t.equal((error as RenderingFailed).reason, "trapped", "an allocation past the bound traps, twice: the document's fault")
  const next = await renderer.render({ markdown: "A letter.", templateId: "clean" })
  t.ok(isValidPdf(next.pdf), "the next document renders")
})

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, { ...database.env, PRESSROOM_RENDER_WORKER_HEAP_MB: "16" })
  const owner = await createAccount(server)
  const quietFrom = server.output().length

  const word = await convert(server, owner.key, { markdown: "é".repeat(40_000) })
  t.equal(word.status, 200, "v1: the 40,000-letter word is a PDF")
  t.equal(word.pdf && pdfText(word.pdf).replace(/\s/gu, ""), "é".repeat(40_000), "v1: every letter in it")

  const large = await convert(server, owner.key, { markdown: largeReport() })
  t.equal(large.status, 422, "v1: a document past the worker's heap answers 422")
  t.equal(large.error?.error.code, "rendering_failed")
  t.equal(large.error?.error.retryable, false)
  t.match(large.error?.error.message, /16 MiB to read its Markdown/, "v1: the message names the bound the document passed")

  const log = server.output().slice(quietFrom)
  t.ok(log.length < 20_000, `the log stays small: ${log.length} bytes`)
  t.notMatch(log, /data:/, "no data: URL in the log")
  t.notMatch(log, /é{8}|Revenue grew/, "no run of the documents' text in the log")
  t.notMatch(log, /panicked|wasm-function/, "no compiler panic output in the log")
  t.match(log, /rendering failed: out_of_memory/, "the failure is logged by its reason")

  await server.stop()
  const attempts = await runWith(
    database,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{
        status: string
        attemptCount: number
      }>`select status, attempt_count as "attemptCount" from jobs order by accepted_at`
    }).pipe(Effect.orDie)
  )
  t.same(
    attempts.map((job) => ({ ...job })),
    [
      { status: "succeeded", attemptCount: 1 },
      { status: "failed", attemptCount: 1 }
    ],
    "each job took one attempt"
  )
})
