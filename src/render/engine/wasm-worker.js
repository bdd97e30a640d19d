// @ts-check
/**
 * One Typst compiler (typst.ts WASM) in a worker thread. Plain JavaScript so that it starts under
 * Node and Deno without a TypeScript loader.
 *
 * The compiler gets the dummy access model: it can read nothing but the sources and shadow files
 * we hand it (the template bundle, the generated main file, decoded images), and it has no package
 * registry, so `@preview` imports and file reads outside the bundle fail inside Typst.
 */
import { parentPort, workerData } from "node:worker_threads"
import * as typst from "@myriaddreamin/typst-ts-web-compiler"

/**
 * @typedef {{
 *   module: WebAssembly.Module,
 *   fonts: SharedArrayBuffer[],
 *   bundle: { path: string, text: string }[],
 *   reportCoverage: boolean
 * }} WorkerData
 */
/** @type {WorkerData} */
const data = workerData
if (!parentPort) throw new Error("wasm-worker must run in a worker thread")
const port = parentPort

// The module is compiled once by the pool and shared: no worker compiles the 28 MB binary again.
const wasm = typst.initSync({ module: data.module })

// Fonts load lazily: Typst asks for a file's bytes the first time a document uses it, so a Latin
// document never copies the CJK faces into this worker's memory.
const resolver = new typst.TypstFontResolverBuilder()
const builder = new typst.TypstCompilerBuilder()
builder.set_dummy_access_model()
/** @type {unknown[]} */
const coverage = []
for (const shared of data.fonts) {
  const bytes = new Uint8Array(shared)
  const info = resolver.get_font_info(bytes)
  if (data.reportCoverage) coverage.push(info.info.map((/** @type {{ coverage: number[] }} */ face) => face.coverage))
  await builder.add_lazy_font(info, () => bytes)
}
const compiler = await builder.build()
for (const file of data.bundle) compiler.add_source(file.path, file.text)

// Warm-up: the first use of a face, of syntax highlighting or of table layout costs hundreds of
// milliseconds; pay it here, before the worker reports ready, instead of in a user's render.
const WARM_UP = `#for family in ("Inter", "IBM Plex Sans", "Source Serif 4", "EB Garamond") [
  #set text(font: family)
  = Heading #emph[italic] #strong[bold]
  Body text with a footnote#footnote[note] and #link("https://example.com")[a link].
  #list[one][two] #enum[one][two]
  #table(columns: 2, table.header([a], [b]), [1], [2])
  #quote(block: true)[quote]
]
#raw(block: true, lang: "js", "const warm = (up) => up * 2 // code")
#raw("inline")`
compiler.add_source("/warm-up.typ", WARM_UP)
compiler.compile("/warm-up.typ", [], "pdf", 1)

/** Diagnostics arrive as a Rust debug string; keep only the human-readable messages. */
const messagesOf = (/** @type {unknown} */ diagnostics) => {
  const text = typeof diagnostics === "string" ? diagnostics : String(diagnostics)
  return [...text.matchAll(/message: "((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? "").replace(/\\(.)/g, "$1"))
}

port.on("message", (/** @type {{ id: number, main: string, inputs: Record<string, string>, shadows: { path: string, bytes: Uint8Array }[] }} */ task) => {
  for (const shadow of task.shadows) compiler.map_shadow(shadow.path, shadow.bytes)
  compiler.add_source("/main.typ", task.main)
  try {
    const result = compiler.compile("/main.typ", Object.entries(task.inputs), "pdf", 1)
    /** @type {Uint8Array} */
    const pdf = result.result
    port.postMessage({ id: task.id, ok: true, pdf, memoryBytes: wasm.memory.buffer.byteLength }, [/** @type {ArrayBuffer} */ (pdf.buffer)])
  } catch (error) {
    // Typst reports a document it cannot typeset as a diagnostics string; anything else (a
    // RuntimeError from a trap, a failed memory.grow) leaves the instance unusable.
    const trapped = error instanceof Error
    const errors = trapped ? [`${error.name}: ${error.message}`] : messagesOf(error)
    port.postMessage({ id: task.id, ok: false, trapped, errors, memoryBytes: wasm.memory.buffer.byteLength })
    if (trapped) return
  }
  for (const shadow of task.shadows) compiler.unmap_shadow(shadow.path)
  // Evicts Typst's memoised results that the last compiles did not use; without it every document
  // ever rendered stays cached and the worker's memory only grows.
  compiler.reset()
})
port.postMessage({ ready: true, coverage: data.reportCoverage ? coverage : undefined })
