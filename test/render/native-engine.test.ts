/**
 * The native engine (PRESSROOM_RENDER_ENGINE=native): the native typst.ts compiler in child
 * processes, behind the pool the WebAssembly engine uses. It renders the recorded corpus to the
 * WebAssembly engine's recorded bytes and manifests, and the math corpus to the WebAssembly
 * engine's bytes (every template in every locale and the CommonMark corpus are compared in
 * catalog.test.ts and commonmark.test.ts, which render them anyway); a render past its deadline or
 * cancelled kills its process, whose CPU time stops; a process killed from outside is replaced, its
 * job tried again; a process past its memory bound fails its job `out_of_memory`; a platform
 * without the binary is refused with a one-line reason.
 */
import t from "tap"
import { ConfigProvider, Effect, Either } from "effect"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { rendererConfig } from "../../src/render/config.ts"
import type { CompileFailure, Loss } from "../../src/render/engine/engine.ts"
import { NATIVE_PACKAGE, NativeEngineUnavailable, resolveNativeBinary } from "../../src/render/engine/native-binary.ts"
import { NativeEnginePool } from "../../src/render/engine/native-pool.ts"
import { processHost } from "../../src/render/engine/process-host.ts"
import { compilerRelease } from "../../src/render/engine/wasm-pool.ts"
import { coveragePath, type RecordedCoverage } from "../../src/render/fonts/coverage.ts"
import { fontSetSha256, packageRoot, readManifest, verifyFonts } from "../../src/render/fonts/manifest.ts"
import { Renderer, type RendererConfig, RenderingFailed } from "../../src/render/renderer.ts"
import { readRecordedCorpus, renderCorpus } from "../fixtures/renderer-corpus.ts"
import { MATH_CORPUS } from "../fixtures/math-corpus.ts"
import { until } from "../helpers/lifecycle.ts"
import { isValidPdf } from "../helpers/pdf.ts"
import { sha256 } from "../helpers/render.ts"
import type { TestContext } from "../helpers/tap.ts"

/**
 * A table of 8,000 cells, as many blocks as a document may have (markdown/block-count.ts): seconds
 * of typesetting (4.6 s on an idle 2-core AMD EPYC), past 256 MiB of the native compiler's memory.
 */
const LONG_HEAD = "| a | b | c | d |\n|---|---|---|---|\n"
const LONG_ROW = "| xx yy | zz ww | 12.5 | *e* |\n"
const LONG_ROWS = 1999
const LONG = LONG_HEAD + LONG_ROW.repeat(LONG_ROWS)
/** A document of about a second. */
const MEDIUM = `${"Lorem ipsum dolor sit amet, consectetur adipiscing elit.[^n]\n\n".repeat(600)}[^n]: A note.\n`
const SHORT = "# Next\n\nA short document.\n"

/** The native worker processes of `parent`: its children running dist/native-worker.js. */
const nativeWorkersOf = (parent: number): Array<number> =>
  readdirSync(`/proc/${parent}/task`)
    .flatMap((task) => readFileSync(`/proc/${parent}/task/${task}/children`, "utf8").trim().split(/\s+/))
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "latin1").includes("native-worker.js")
      } catch {
        return false
      }
    })

/** The native workers this process runs. */
const nativeWorkers = (): Array<number> => nativeWorkersOf(process.pid)

/** A process's CPU time so far (user and system, in clock ticks), or undefined once it is gone. */
const cpuTicks = (pid: number): number | undefined => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]!.split(" ")
    // A zombie has stopped already; its times are final.
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return undefined
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Whether the process is gone, or at least burns no more CPU (its time unchanged over half a second). */
const stopped = async (pid: number): Promise<boolean> => {
  const before = cpuTicks(pid)
  await sleep(500)
  const after = cpuTicks(pid)
  return after === undefined || after === before
}

const settle = <A>(promise: Promise<A>): Promise<{ readonly value?: A; readonly error?: unknown }> =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error })
  )

const nativeRenderer = (config: Partial<RendererConfig> = {}): Promise<Renderer> =>
  Renderer.create({ engine: "native", workers: 1, timeoutMs: 120_000, compilerMemoryMiB: 4096, workerMemoryMiB: 4096, ...config })

t.test("the recorded corpus renders to the WebAssembly engine's recorded bytes and manifests", async (t) => {
  const renderer = await Renderer.create({ engine: "native", workers: 2, timeoutMs: 120_000, warmUp: false })
  t.teardown(() => renderer.close())
  const recorded = new Map(readRecordedCorpus().entries.map((entry) => [entry.name, entry]))
  const corpus = await renderCorpus(renderer)
  for (const entry of corpus.entries) {
    t.equal(entry.pdfSha256, recorded.get(entry.name)?.pdfSha256, `${entry.name}: the same bytes`)
    t.equal(entry.manifestSha256, recorded.get(entry.name)?.manifestSha256, `${entry.name}: the same manifest`)
  }
  const provenance = (await renderer.render({ markdown: SHORT, templateId: "clean" })).provenance
  t.match(provenance.engineVersion, /^typst 0\.14\.2 \(typst\.ts \d+\.\d+\.\d+, native\)$/, "engineVersion names the native engine")
  const binary = resolveNativeBinary(packageRoot, compilerRelease().version)
  t.equal(provenance.rendererReleaseChecksum, sha256(readFileSync(binary.path)), "the checksum is that of the binary the workers load")
})

t.test("the math corpus renders to the WebAssembly engine's bytes", async (t) => {
  const [native, wasm] = await Promise.all([
    Renderer.create({ engine: "native", workers: 1, timeoutMs: 120_000, warmUp: false }),
    Renderer.create({ workers: 1, timeoutMs: 120_000, warmUp: false })
  ])
  t.teardown(() => Promise.all([native.close(), wasm.close()]))
  for (const group of MATH_CORPUS) {
    const markdown = group.formulas
      .map((latex) => (group.mode === "display" ? `$$\n${latex}\n$$\n` : `Inline $${latex}$ text.\n`))
      .join("\n")
    const [a, b] = await Promise.all([
      native.render({ markdown, templateId: "academic" }),
      wasm.render({ markdown, templateId: "academic" })
    ])
    t.equal(a.sha256, b.sha256, `${group.source.slice(0, 60)}…: the same bytes`)
    t.same(a.warnings, b.warnings, "and the same warnings")
  }
})

t.test(
  "the native engine's coverage is fonts/coverage.json, recorded for this font set and release from the WebAssembly workers' own",
  async (t) => {
    const recorded = JSON.parse(readFileSync(coveragePath(packageRoot), "utf8")) as RecordedCoverage
    t.equal(recorded.fontSetSha256, fontSetSha256(readManifest()), "recorded for this font set (npm run fonts:coverage)")
    t.equal(recorded.typstTs, compilerRelease().version, "and for this typst.ts release")
    const wasm = await Renderer.create({ workers: 1, warmUp: false })
    t.teardown(() => wasm.close())
    t.same(recorded.ranges, wasm.coverage, "the code points the WebAssembly workers report")
    const native = await nativeRenderer({ warmUp: false })
    t.teardown(() => native.close())
    t.same(native.coverage, wasm.coverage, "what the native engine names as missing is what the WebAssembly engine names")
  }
)

t.test("a character the bundled fonts draw only in one face is drawn in that face, not in a system font", async (t) => {
  const [native, wasm] = await Promise.all([
    Renderer.create({ engine: "native", workers: 1, timeoutMs: 60_000, warmUp: false }),
    Renderer.create({ workers: 1, timeoutMs: 60_000, warmUp: false })
  ])
  t.teardown(() => Promise.all([native.close(), wasm.close()]))
  // U+2232 is in Noto Sans Math and in DejaVu Sans, which most Linux systems install: the native
  // compiler took it from the system until its workers were given no system fonts.
  const request = { markdown: "A clockwise contour integral: \u2232.", templateId: "clean" } as const
  const [a, b] = await Promise.all([native.render(request), wasm.render(request)])
  t.equal(a.sha256, b.sha256, "the same bytes as the WebAssembly engine")
  t.notMatch(Buffer.from(a.pdf).toString("latin1"), /DejaVu/, "no system font in the PDF")
})

t.test("a render past its deadline kills its process; the next render succeeds", async (t) => {
  const renderer = await nativeRenderer({ timeoutMs: 2_000 })
  t.teardown(() => renderer.close())
  const [worker] = nativeWorkers()
  t.ok(worker, "a native worker process runs")
  const outcome = await settle(renderer.render({ markdown: LONG, templateId: "clean" }))
  t.type(outcome.error, RenderingFailed, "rejects with RenderingFailed")
  t.equal((outcome.error as RenderingFailed).reason, "timeout", "reason timeout")
  t.equal((outcome.error as RenderingFailed).message, "the document took longer than the render time limit of 2 s", "naming the limit")
  t.ok(await stopped(worker!), "its process burns no more CPU")
  t.notOk(nativeWorkers().includes(worker!), "and is gone")
  t.equal(renderer.workerReplacements().timeout, 1, "counted as replaced for a timeout")
  t.ok(isValidPdf((await renderer.render({ markdown: SHORT, templateId: "clean" })).pdf), "the next render succeeds")
})

t.test("a cancelled render kills its process; the next render succeeds", async (t) => {
  const renderer = await nativeRenderer()
  t.teardown(() => renderer.close())
  const [worker] = nativeWorkers()
  const controller = new AbortController()
  const long = settle(renderer.render({ markdown: LONG, templateId: "clean" }, { signal: controller.signal }))
  await sleep(500)
  const abortedAt = Date.now()
  controller.abort()
  const outcome = await long
  t.ok(Date.now() - abortedAt < 2_000, `rejected ${Date.now() - abortedAt} ms after the abort`)
  t.equal((outcome.error as RenderingFailed).reason, "cancelled", "reason cancelled")
  t.ok(await stopped(worker!), "its process burns no more CPU")
  t.notOk(nativeWorkers().includes(worker!), "and is gone")
  t.equal(renderer.workerReplacements().cancelled, 1, "counted as replaced for a cancellation")
  t.ok(isValidPdf((await renderer.render({ markdown: SHORT, templateId: "clean" })).pdf), "the next render succeeds")
})

/**
 * A process of its own holding a native renderer from the build (dist/index.js), rendering
 * `markdown` (a JavaScript expression); it says "rendering" once the render is under way, and on
 * SIGINT, as a server's graceful shutdown does, waits for the render before it exits.
 */
const renderingParent = async (t: TestContext, markdown: string) => {
  const script = `import { Renderer } from ${JSON.stringify(join(packageRoot, "dist", "index.js"))}
const renderer = await Renderer.create({ engine: "native", workers: 1, timeoutMs: 600000, compilerMemoryMiB: 4096, warmUp: false })
const rendering = renderer.render({ markdown: ${markdown}, templateId: "clean" })
process.on("SIGINT", () => rendering.then(() => { console.log("rendered, workers replaced: " + renderer.workerReplacements().crashed); process.exit(0) }, () => process.exit(1)))
console.log("rendering")`
  const parent = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"], detached: true })
  t.teardown(() => {
    if (parent.exitCode === null && parent.signalCode === null) process.kill(-parent.pid!, "SIGKILL")
  })
  let output = ""
  parent.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
  while (!output.includes("rendering")) await sleep(50)
  await sleep(300)
  const [worker] = nativeWorkersOf(parent.pid!)
  t.ok(worker, "its native worker process renders")
  return { parent, worker: worker!, output: () => output }
}

t.test("a worker process does not outlive its parent killed mid-render", async (t) => {
  const { parent, worker } = await renderingParent(t, `${JSON.stringify(LONG_HEAD)} + ${JSON.stringify(LONG_ROW)}.repeat(${LONG_ROWS})`)
  t.notOk(await stopped(worker), "the worker is typesetting")
  parent.kill("SIGKILL")
  await sleep(1_500)
  t.ok(await stopped(worker), "a second and a half after its parent's end it burns no more CPU")
})

t.test("Ctrl-C to the whole process group lets a graceful shutdown finish the render", async (t) => {
  // A quarter of LONG: seconds of typesetting, still under way when the signal comes.
  const { parent, output } = await renderingParent(t, `${JSON.stringify(LONG_HEAD)} + ${JSON.stringify(LONG_ROW)}.repeat(${LONG_ROWS / 4})`)
  const exited = new Promise<number | null>((resolve) => parent.once("exit", resolve))
  // A terminal sends SIGINT to every process of the group: the worker must leave its end to the pool.
  process.kill(-parent.pid!, "SIGINT")
  t.equal(await exited, 0, "the parent waited for its render")
  t.match(output(), /rendered, workers replaced: 0/, "which its worker finished, not a replacement after a crash")
})

t.test("a character no bundled font covers gives the same bytes on both engines (no font of the binary's own)", async (t) => {
  const [native, wasm] = await Promise.all([
    Renderer.create({ engine: "native", workers: 1, timeoutMs: 60_000, warmUp: false }),
    Renderer.create({ workers: 1, timeoutMs: 60_000, warmUp: false })
  ])
  t.teardown(() => Promise.all([native.close(), wasm.close()]))
  // Braille and Ethiopic: in DejaVu Sans and in the fonts some Typst builds embed, in none of ours.
  const request = { markdown: "Braille \u2801\u2803\u2809, Ethiopic \u1230\u120B\u121D, `\u2801\u2803`.", templateId: "clean" } as const
  const [a, b] = await Promise.all([native.render(request), wasm.render(request)])
  t.match(
    a.warnings.map((warning) => warning.code),
    ["missing_glyphs"],
    "the document is warned of the characters no font draws"
  )
  t.equal(a.sha256, b.sha256, "the same bytes as the WebAssembly engine")
})

t.test("a process killed from outside is replaced; its job is tried again in the fresh one", async (t) => {
  const renderer = await nativeRenderer()
  t.teardown(() => renderer.close())
  const reference = await renderer.render({ markdown: MEDIUM, templateId: "clean" })

  // A worker on its way out may still be listed (one replaced after the render, as when its memo
  // eviction outruns its bound on a loaded machine): the one to kill is the only one left.
  await until("this renderer's worker alone", async () => nativeWorkers().length === 1)
  const [idle] = nativeWorkers()
  process.kill(idle!, "SIGKILL")
  await until("the killed process replaced", async () => nativeWorkers().length === 1 && !nativeWorkers().includes(idle!))
  t.equal(renderer.workerReplacements().crashed, 1, "a process killed between jobs is replaced")
  t.equal((await renderer.render({ markdown: MEDIUM, templateId: "clean" })).sha256, reference.sha256, "and the next render succeeds")

  const [busy] = nativeWorkers()
  const idleTicks = cpuTicks(busy!)!
  let rendered = false
  const during = renderer.render({ markdown: MEDIUM, templateId: "clean" })
  void during.then(
    () => {
      rendered = true
    },
    () => {}
  )
  // The process has taken the job once it burns CPU; the kill must land before its result.
  while (cpuTicks(busy!) === idleTicks) await sleep(10)
  t.notOk(rendered, "the process is killed while it renders")
  process.kill(busy!, "SIGKILL")
  t.equal((await during).sha256, reference.sha256, "a job whose process was killed succeeds in the fresh one, with the same bytes")
  t.equal(renderer.workerReplacements().crashed, 2, "which replaced it")
})

t.test("a process past its memory bound fails its render out_of_memory and is replaced", async (t) => {
  const renderer = await nativeRenderer({ compilerMemoryMiB: 256 })
  t.teardown(() => renderer.close())
  const [worker] = nativeWorkers()
  const outcome = await settle(renderer.render({ markdown: LONG, templateId: "clean" }))
  t.equal((outcome.error as RenderingFailed).reason, "out_of_memory", "reason out_of_memory")
  t.ok(await stopped(worker!), "its process burns no more CPU")
  t.equal(renderer.workerReplacements().out_of_memory, 1, "counted as replaced for memory")
  t.ok(isValidPdf((await renderer.render({ markdown: SHORT, templateId: "clean" })).pdf), "the next render succeeds")
})

/** How a worker process running `source` (a stand-in for the native worker) is reported lost. */
const lossOf = (source: string): Promise<Loss> => {
  const script = join(mkdtempSync(join(tmpdir(), "pressroom-abort-")), "worker.mjs")
  writeFileSync(script, source)
  return new Promise((resolve) =>
    processHost({ script, setup: {}, env: {}, heapMiB: 64, memoryLimitBytes: 2 ** 30 })({ message: () => {}, lost: resolve })
  )
}

t.test("a worker process that aborts for want of memory is out_of_memory, however its message arrives", async (t) => {
  // What V8 prints when the heap is full: the message, then a native stack of a kilobyte or two.
  const message = "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n"
  const stack = Array.from({ length: 40 }, (_, i) => ` ${i}: 0x1114ffa v8::internal::Heap::CollectGarbage() [/usr/bin/node]`).join("\n")
  const inOneChunk = await lossOf(`process.stderr.write(${JSON.stringify(message + stack)}, () => process.abort())`)
  t.same(inOneChunk.outOfMemory, true, "the message and the stack after it in one chunk")
  const split = await lossOf(
    `process.stderr.write(${JSON.stringify(message.slice(0, 60))}, () => setTimeout(() => process.stderr.write(${JSON.stringify(message.slice(60) + stack)}, () => process.abort()), 50))`
  )
  t.same(split.outOfMemory, true, "the message split between two chunks")
  const other = await lossOf(
    `process.stderr.write("thread 'main' panicked at src/lib.rs:1:1\\n" + "x".repeat(2000), () => process.abort())`
  )
  t.same(other, { outOfMemory: false, why: "worker process exited with SIGABRT" }, "any other abort is not")
})

t.test("without the binary for the platform, the native engine refuses to start in one line", async (t) => {
  const refusal = (run: () => unknown): string => {
    try {
      run()
    } catch (error) {
      t.type(error, NativeEngineUnavailable)
      return (error as Error).message
    }
    t.fail("it started")
    return ""
  }
  const nowhere = mkdtempSync(join(tmpdir(), "pressroom-no-native-"))
  const release = compilerRelease().version
  const missing = refusal(() => resolveNativeBinary(nowhere, release))
  t.match(missing, /^PRESSROOM_RENDER_ENGINE=native cannot start: .*@myriaddreamin\/typst-ts-node-compiler-[a-z0-9-]+ is not installed/)
  t.notMatch(missing, /\n/, "in one line")
  const unsupported = refusal(() => resolveNativeBinary(packageRoot, release, { platform: "freebsd", arch: "x64", musl: false }))
  t.match(unsupported, `${NATIVE_PACKAGE} ships no binary for freebsd-x64`)
  t.match(unsupported, /PRESSROOM_RENDER_ENGINE/)
  const musl = refusal(() => resolveNativeBinary(packageRoot, release, { platform: "linux", arch: "x64", musl: true }))
  t.match(musl, `${NATIVE_PACKAGE}-linux-x64-musl is not installed`, "a musl Linux looks for its own package")
  const otherRelease = refusal(() => resolveNativeBinary(packageRoot, "0.6.0"))
  t.match(otherRelease, /-linux-x64-gnu is 0\.7\.0, not 0\.6\.0 as the WebAssembly compiler/, "a binary of another typst.ts release")
  t.throws(
    () =>
      new NativeEnginePool({
        size: 1,
        timeoutMs: 1_000,
        fonts: verifyFonts(),
        recycleAboveBytes: 1,
        warmUp: false,
        installedUnder: nowhere
      }),
    NativeEngineUnavailable,
    "the pool does not start"
  )
  t.ok(existsSync(join(packageRoot, "dist", "native-worker.js")), "the built worker is there for the installed platform")
})

t.test("a worker process that cannot start says why, and no job waits for it", async (t) => {
  // A font file that differs from the manifest, as one replaced on disk after the server started.
  const fonts = verifyFonts().map((font, i) => (i === 0 ? { ...font, sha256: "0".repeat(64) } : font))
  const pool = new NativeEnginePool({ size: 1, timeoutMs: 10_000, fonts, recycleAboveBytes: 1 << 30, warmUp: false })
  t.teardown(() => pool.close())
  await t.rejects(pool.warm(), /font file differs from fonts\/manifest\.json/, "the start fails naming the font file")
  const failure = await pool
    .typeset({
      markdown: SHORT,
      templateId: "clean",
      options: { pageNumbers: false, bodyTextColor: null, headingTextColor: null, creativeAccent: "slate" },
      locale: { code: "en", lang: "en", region: null, dir: "ltr" }
    })
    .then(
      () => undefined,
      (error: unknown) => error as CompileFailure
    )
  t.equal(failure?.reason, "crashed", "a job fails as the service's fault")
  t.match(failure?.details.join(" "), /no compiler worker could start: font file differs/, "saying why")
})

t.test("PRESSROOM_RENDER_ENGINE chooses the engine: wasm by default, native, nothing else", async (t) => {
  const read = (env: Record<string, string>) =>
    Effect.runSync(Effect.either(Effect.withConfigProvider(rendererConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))))
  t.match(read({}), Either.right({ engine: "wasm" }), "wasm by default")
  t.match(read({ PRESSROOM_RENDER_ENGINE: "native" }), Either.right({ engine: "native" }))
  const bogus = read({ PRESSROOM_RENDER_ENGINE: "gpu" })
  t.ok(Either.isLeft(bogus) && String(bogus.left).includes("PRESSROOM_RENDER_ENGINE"), "another value is refused, naming the variable")
})
