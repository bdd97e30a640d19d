/**
 * The compiler pool: when its workers cannot start (a damaged install) it says so to every caller
 * and does not respawn workers that would die the same way (the file itself must end: a pool
 * respawning forever would keep this process alive until tap's timeout); workers replaced past
 * their memory threshold typeset exactly as the first did, and jobs queued during a worker's memo
 * eviction or replacement run after it; a font file replaced on disk while the pool runs fails the
 * render that needs it, naming the file.
 */
import t from "tap"
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readBundle } from "../../src/render/engine/bundle.ts"
import { CompileFailure, noWorkerReplacements } from "../../src/render/engine/engine.ts"
import { LARGE_SOURCE_CHARS } from "../../src/render/engine/memo-eviction.ts"
import { WasmEnginePool } from "../../src/render/engine/wasm-pool.ts"
import { verifyFonts } from "../../src/render/fonts/manifest.ts"
import { sha256 } from "../helpers/render.ts"

const MiB = 1024 * 1024

const job = {
  markdown: "# x",
  templateId: "clean",
  options: { pageNumbers: false, bodyTextColor: null, headingTextColor: null, creativeAccent: "slate" as const },
  locale: { code: "en", lang: "en", region: null, dir: "ltr" }
}

t.test("workers that cannot start fail every job as crashed, once", async (t) => {
  // A bundle file whose text is not a string makes the worker's start-up throw inside WASM.
  const broken = [...readBundle(), { path: "/broken.typ", text: 42 as unknown as string }]
  const pool = new WasmEnginePool({ size: 2, timeoutMs: 5_000, fonts: [], bundle: broken, recycleAboveBytes: 256 * MiB, warmUp: true })
  const queued = pool.typeset(job)
  await t.rejects(pool.warm(), "warm-up reports the failure")
  const error = await queued.then(
    () => undefined,
    (e: unknown) => e
  )
  t.type(error, CompileFailure, "the job queued before start-up fails")
  t.equal((error as CompileFailure).reason, "crashed")
  t.match((error as CompileFailure).details.join(" "), /no compiler worker could start/)
  const later = await pool.typeset(job).then(
    () => undefined,
    (e: unknown) => e
  )
  t.type(later, CompileFailure, "a later job fails at once")
  t.match((later as CompileFailure).details.join(" "), /no compiler worker could start/)
  await pool.close()
})

const withText = (markdown: string) => ({ ...job, markdown })
const scripts = "Latin, Русский, Ελληνικά, العربية, हिन्दी, 日本語, 简体中文, 한국어"

t.test("a worker replaced after every render typesets exactly as the first one", async (t) => {
  // Any memory is past a 1-byte threshold: every render ends with its worker replaced, and each
  // replacement starts from the font descriptions the first worker computed.
  const pool = new WasmEnginePool({
    size: 1,
    timeoutMs: 60_000,
    fonts: verifyFonts(),
    bundle: readBundle(),
    recycleAboveBytes: 1,
    warmUp: true
  })
  await pool.warm()
  const first = await pool.typeset(withText(scripts))
  const again = await pool.typeset(withText(scripts))
  const third = await pool.typeset(withText(scripts))
  t.equal(sha256(again.pdf), sha256(first.pdf), "a replacement gives the same bytes")
  t.equal(sha256(third.pdf), sha256(first.pdf), "and so does the next one")
  // Jobs queued behind a worker that is being replaced go to its replacement.
  const queued = await Promise.all([1, 2, 3].map(() => pool.typeset(withText(scripts))))
  t.same(
    queued.map((r) => sha256(r.pdf)),
    [1, 2, 3].map(() => sha256(first.pdf)),
    "queued jobs typeset on the replacements"
  )
  // Each of the first five jobs' workers was replaced before the next job could start; the
  // sixth's may still be evicting.
  const replaced = pool.workerReplacements()
  t.ok(replaced.recycled >= 5, `workers recycled for their memory: ${replaced.recycled}`)
  t.same({ ...replaced, recycled: 0 }, noWorkerReplacements, "and replaced for no other reason")
  await pool.close()
})

t.test("jobs queued while a worker evicts its memo cache run after it, each typesetting its own text", async (t) => {
  // One worker: every job after the first waits for the previous one's reply and eviction.
  const pool = new WasmEnginePool({
    size: 1,
    timeoutMs: 60_000,
    fonts: verifyFonts(),
    bundle: readBundle(),
    recycleAboveBytes: 256 * MiB,
    warmUp: true
  })
  await pool.warm()
  const texts = Array.from({ length: 6 }, (_, k) => `# Letter ${k}\n\n${"Dear reader, ".repeat(20 * (k + 1))}`)
  const results = await Promise.all(texts.map((text) => pool.typeset(withText(text))))
  const alone = await Promise.all([texts[0]!, texts[5]!].map((text) => pool.typeset(withText(text))))
  t.equal(new Set(results.map((r) => sha256(r.pdf))).size, texts.length, "six different documents")
  t.equal(sha256(alone[0]!.pdf), sha256(results[0]!.pdf), "the first typesets the same after five evictions")
  t.equal(sha256(alone[1]!.pdf), sha256(results[5]!.pdf), "and so does the last")
  await pool.close()
})

t.test("a font file changed on disk after start fails the render that needs it, naming the file", async (t) => {
  const fonts = verifyFonts()
  const dir = mkdtempSync(join(tmpdir(), "pressroom-fonts-"))
  // The only face for Arabic, which the workers' warm-up never loads.
  const arabic = fonts.findIndex((font) => font.family === "Amiri" && font.weight === 400 && font.style === "normal")
  t.ok(arabic >= 0, "the set has an Arabic face")
  const copy = join(dir, "arabic.ttf")
  copyFileSync(fonts[arabic]!.path, copy)
  const moved = fonts.map((font, i) => (i === arabic ? { ...font, path: copy } : font))
  const pool = new WasmEnginePool({
    size: 1,
    timeoutMs: 60_000,
    fonts: moved,
    bundle: readBundle(),
    recycleAboveBytes: 256 * MiB,
    warmUp: true
  })
  await pool.warm()
  writeFileSync(copy, "not the font any more")
  const error = await pool.typeset(withText("نص عربي")).then(
    () => undefined,
    (e: unknown) => e
  )
  t.type(error, CompileFailure, "the render fails")
  t.equal((error as CompileFailure).reason, "crashed", "and its worker is replaced")
  t.match((error as CompileFailure).details.join(" "), /font file differs from fonts\/manifest.json: .*Amiri/, "the error names the file")
  t.same(pool.workerReplacements(), { ...noWorkerReplacements, crashed: 1 }, "one worker replaced, as crashed")
  const latin = await pool.typeset(withText("Latin only"))
  t.ok(latin.pdf.byteLength > 0, "a document that does not need the face still renders")
  await pool.close()
})

t.test("a worker still evicting past its deadline is replaced, and no job is lost", async (t) => {
  // Forty sections, each with a long paragraph, a table and a footnote: past LARGE_SOURCE_CHARS,
  // so the worker drops its whole memo cache after each job, which takes 5 to 15 ms here (a
  // letter's eviction, about one); a 1 ms deadline takes that eviction for hung. Only a main
  // thread stalled for the whole eviction would see the idle message before its timer, so of two
  // evictions at least one must be given up.
  const report = (k: number) =>
    Array.from({ length: 40 }, (_, i) =>
      [
        `## Area ${i} (${k})`,
        `The figures of area ${i} moved against the plan, as they did the quarter before. `.repeat(15) +
          `The method is in the note.[^n${i}]`,
        "| Metric | Q1 | Q2 |\n|:--|--:|--:|\n| Orders | 1,204 | 1,311 |\n| Returns | 31 | 28 |",
        `[^n${i}]: Unaudited figures, area ${i}.`
      ].join("\n\n")
    ).join("\n\n")
  const options = { size: 1, timeoutMs: 60_000, fonts: verifyFonts(), bundle: readBundle(), recycleAboveBytes: 256 * MiB, warmUp: true }
  const strict = new WasmEnginePool({ ...options, evictionTimeoutMs: 1 })
  const patient = new WasmEnginePool(options)
  await Promise.all([strict.warm(), patient.warm()])
  const hurried = []
  for (const k of [1, 2, 3]) hurried.push(await strict.typeset(withText(report(k))))
  t.ok(report(1).length > LARGE_SOURCE_CHARS, "the document is large (its Typst source is longer still)")
  // The third job starts only once the second one's worker is idle or replaced.
  t.ok(strict.workerReplacements().eviction >= 1, `workers replaced for a hung eviction: ${strict.workerReplacements().eviction}`)
  t.same({ ...strict.workerReplacements(), eviction: 0 }, noWorkerReplacements, "and for no other reason")
  const calm = []
  for (const k of [1, 2, 3]) calm.push(await patient.typeset(withText(report(k))))
  t.same(patient.workerReplacements(), noWorkerReplacements, "with the default deadline no worker is replaced")
  t.same(
    hurried.map((r) => sha256(r.pdf)),
    calm.map((r) => sha256(r.pdf)),
    "every job got its PDF, the same bytes as without replacements"
  )
  await Promise.all([strict.close(), patient.close()])
})

t.test("closing the pool ends a running job at once, as engine closed, and replaces no worker", async (t) => {
  const pool = new WasmEnginePool({
    size: 1,
    timeoutMs: 60_000,
    fonts: verifyFonts(),
    bundle: readBundle(),
    recycleAboveBytes: 256 * MiB,
    warmUp: false
  })
  await pool.warm()
  // 4,000 paragraphs: a second or more of work for the worker.
  const long = Array.from({ length: 4000 }, (_, i) => `Paragraph ${i} of a long document.`).join("\n\n")
  const running = pool.typeset(withText(long)).then(
    () => undefined,
    (e: unknown) => e
  )
  await new Promise((resolve) => setTimeout(resolve, 200))
  const closedAt = Date.now()
  await pool.close()
  const error = await running
  t.ok(Date.now() - closedAt < 1_000, `the job ended ${Date.now() - closedAt} ms after close`)
  t.type(error, CompileFailure)
  t.equal((error as CompileFailure).reason, "crashed", "it fails as crashed")
  t.same((error as CompileFailure).details, ["engine closed"], "as engine closed, not at its deadline as a timeout")
  t.same(pool.workerReplacements(), noWorkerReplacements, "closing replaces no worker")
})
