/**
 * Typst's memo cache is evicted inside the WASM compiler (memo-eviction.ts): the addresses recorded
 * for this binary are the ones `npm run memo-layout` finds in it; a layout that does not fit is
 * refused before anything is written; documents typeset after their memoised work was evicted
 * (by age, or wholly after a large document) give exactly the bytes of a fresh compile and of the
 * native compiler; and a binary with no recorded layout renders the same bytes without eviction.
 */
import t from "tap"
import { childEnv } from "../helpers/child-env.ts"
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { readBundle } from "../../src/render/engine/bundle.ts"
import { noWorkerReplacements } from "../../src/render/engine/engine.ts"
import { FUNCTION_TABLE_EXPORT, LARGE_SOURCE_CHARS, MEMO_LAYOUTS, MemoCache } from "../../src/render/engine/memo-eviction.ts"
import { NativeEnginePool } from "../../src/render/engine/native-pool.ts"
import { exportFunctionTable } from "../../src/render/engine/table-export.ts"
import { startCompiler } from "../../src/render/engine/wasm-compiler.ts"
import { compilerRelease, WasmEnginePool } from "../../src/render/engine/wasm-pool.ts"
import { packageRoot, verifyFonts } from "../../src/render/fonts/manifest.ts"
import { parseMarkdown } from "../../src/render/markdown/parse.ts"
import { toTypst } from "../../src/render/markdown/to-typst.ts"
import { convertHere } from "../../src/render/engine/convert.ts"
import { typesetDocument, type TypesetJob } from "../../src/render/engine/typeset.ts"
import { sha256 } from "../helpers/render.ts"
import type { TestContext } from "../helpers/tap.ts"

const binary = readFileSync(compilerRelease().binaryPath)

/** The native engine, one worker: the reference bytes. */
const nativeEngine = async (t: TestContext): Promise<NativeEnginePool> => {
  const native = new NativeEnginePool({
    size: 1,
    timeoutMs: 120_000,
    fonts: verifyFonts(),
    recycleAboveBytes: 4096 * 1024 * 1024,
    warmUp: false
  })
  t.teardown(() => native.close())
  await native.warm()
  return native
}
const layout = MEMO_LAYOUTS[sha256(binary)]!

const example = (id: string) => readFileSync(join(packageRoot, "examples", `${id}.md`), "utf8")
const job = (templateId: string, markdown: string): TypesetJob => ({
  markdown,
  templateId,
  options: { pageNumbers: true, bodyTextColor: null, headingTextColor: null, creativeAccent: "slate" },
  locale: { code: "en", lang: "en", region: null, dir: "ltr" }
})
/** A document whose Typst source passes the worker's large-document size (50,000 characters). */
const large = job(
  "clean",
  Array.from(
    { length: 400 },
    (_, i) => `## Part ${i}\n\nParagraph ${i} with *emphasis*, a \`span\` and a note.[^${i}]\n\n[^${i}]: Note ${i}.\n`
  ).join("\n")
)
const letter = job("coverletter", example("coverletter"))
const others = ["resume", "academic", "legal", "creative"].map((id) => job(id, example(id)))

t.test("the recorded layout is the one npm run memo-layout finds in the installed binary", async (t) => {
  t.ok(layout, "the installed binary has a layout")
  // The script exits 1 when a check fails; its report is on stdout either way, unless it failed
  // before that, which its stderr explains.
  const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/memo-layout.ts"],
      { cwd: packageRoot, env: childEnv(), timeout: 120_000 },
      (_, stdout, stderr) => resolve({ stdout, stderr })
    )
  )
  if (!stdout.trim().startsWith("{"))
    return void t.fail(`npm run memo-layout reported nothing: ${stderr.trim().split("\n").slice(-3).join(" | ")}`)
  const found = JSON.parse(stdout) as {
    layout: unknown
    memoryGrowthOver40Letters: number
    acceleratorsBounded: boolean
    sameBytesAfterEviction: boolean
  }
  t.same(found.layout, layout, "same addresses")
  t.ok(found.memoryGrowthOver40Letters < 1024 * 1024, "with eviction, 40 more distinct letters do not grow the memory (4.5 MiB without)")
  t.ok(found.acceleratorsBounded, "the accelerators restart from the counter")
  t.ok(found.sameBytesAfterEviction, "a letter typeset again after eviction gives the same bytes")
})

t.test("a layout that does not fit the binary is refused, and the true one evicts", async (t) => {
  const compiler = await startCompiler({
    module: new WebAssembly.Module(exportFunctionTable(binary, FUNCTION_TABLE_EXPORT)),
    memoLayout: layout,
    fonts: verifyFonts(),
    fontInfos: undefined,
    bundle: readBundle()
  })
  const memo = compiler.memo!
  const first = (await typesetDocument(letter, convertHere, compiler.compile)).pdf
  memo.check()
  // For this binary, each field off by a word is refused (a wrong counter is caught only because
  // its neighbours hold small numbers; it could not make a PDF wrong, see memo-eviction.ts).
  for (const field of ["evictors", "accelerators", "counter"] as const) {
    for (const shift of [-4, 4]) {
      const wrong = new MemoCache(compiler.memory, compiler.functionTable, { ...layout, [field]: layout[field] + shift })
      t.throws(() => wrong.check(), { name: "MemoEvictionError" }, `${field} ${shift > 0 ? "+" : ""}${shift} bytes is refused`)
    }
  }
  // ACCELERATORS as words: lock, offset, capacity, pointer, length (memo-eviction.ts).
  const words = () => new Uint32Array(compiler.memory.buffer)
  const accelerators = () => {
    const [offset, pointer, length] = [1, 3, 4].map((i) => words()[layout.accelerators / 4 + i]!) as [number, number, number]
    const inUse = Array.from({ length }, (_, i) => words()[pointer / 4 + 5 * i + 4]!).filter((items) => items > 0).length
    return { offset, length, inUse }
  }
  const variantLetter = (i: number) => job("coverletter", `${example("coverletter")}\n\nVariant ${i}.`)
  const afterOne = accelerators()
  t.equal(afterOne.offset, 0, "before any eviction the accelerators start at 0")
  t.ok(afterOne.inUse > 0, "the letter filled accelerators")
  for (let i = 0; i < 3; i++) await typesetDocument(variantLetter(i), convertHere, compiler.compile)
  const afterFour = accelerators()
  t.ok(afterFour.length > afterOne.length, "without eviction, every distinct letter adds accelerators")
  memo.evict(0)
  t.equal(accelerators().offset, words()[layout.counter / 4], "eviction moves the accelerators' offset to the counter")
  t.equal(accelerators().inUse, 0, "and empties every accelerator")
  for (let i = 3; i < 33; i++) {
    await typesetDocument(variantLetter(i), convertHere, compiler.compile)
    memo.evict(0)
  }
  t.equal(accelerators().length, afterFour.length, "30 distinct letters with eviction reuse the accelerators instead of adding more")
  const again = (await typesetDocument(letter, convertHere, compiler.compile)).pdf
  t.equal(sha256(again), sha256(first), "the same bytes after everything was evicted")
})

t.test("documents typeset after eviction give the bytes of the native compiler", async (t) => {
  t.ok(
    toTypst(parseMarkdown(large.markdown).root, {}).markup.length > LARGE_SOURCE_CHARS,
    "the large document passes the size after which everything is evicted"
  )
  const pool = new WasmEnginePool({
    size: 1,
    timeoutMs: 120_000,
    fonts: verifyFonts(),
    bundle: readBundle(),
    recycleAboveBytes: 4096 * 1024 * 1024,
    warmUp: true
  })
  t.teardown(() => pool.close())
  await pool.warm()
  const native = await nativeEngine(t)
  const expected = sha256((await native.typeset(letter)).pdf)
  t.equal(sha256((await pool.typeset(letter)).pdf), expected, "first render: the native compiler's bytes")
  // Four other documents age the letter's entries past the two evictions they may stay unused.
  for (const other of others)
    t.equal(
      sha256((await pool.typeset(other)).pdf),
      sha256((await native.typeset(other)).pdf),
      `${other.templateId}: the native compiler's bytes`
    )
  t.equal(sha256((await pool.typeset(letter)).pdf), expected, "after its entries aged out")
  t.equal(
    sha256((await pool.typeset(large)).pdf),
    sha256((await native.typeset(large)).pdf),
    "a large document: the native compiler's bytes"
  )
  t.equal(sha256((await pool.typeset(letter)).pdf), expected, "after the large document emptied the cache")
})

t.test("a binary with no recorded layout renders the native compiler's bytes, without eviction", async (t) => {
  const warnings: Array<string> = []
  t.capture(console, "warn", (...args: Array<unknown>) => void warnings.push(args.join(" ")))
  // No layouts: the installed binary's checksum is unknown, as a typst.ts upgrade's would be.
  const pool = new WasmEnginePool({
    size: 1,
    timeoutMs: 120_000,
    fonts: verifyFonts(),
    bundle: readBundle(),
    recycleAboveBytes: 4096 * 1024 * 1024,
    warmUp: true,
    memoLayouts: {}
  })
  t.teardown(() => pool.close())
  await pool.warm()
  t.equal(warnings.length, 1, "the pool says once that it does not evict")
  t.match(warnings[0], /not evicted.*PRESSROOM_RENDER_WORKER_MEMORY_MB/, "and that worker recycling bounds memory instead")
  const native = await nativeEngine(t)
  for (const document of [letter, ...others, large, letter]) {
    t.equal(
      sha256((await pool.typeset(document)).pdf),
      sha256((await native.typeset(document)).pdf),
      `${document.templateId}: the native compiler's bytes`
    )
  }
  t.same(pool.workerReplacements(), noWorkerReplacements, "no worker was replaced")
  t.equal(warnings.length, 1, "nor warned again")
})
