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

/** @typedef {{ wasmPath: string, fonts: SharedArrayBuffer[], bundle: { path: string, text: string }[] }} WorkerData */
/** @type {WorkerData} */
const data = workerData
if (!parentPort) throw new Error("wasm-worker must run in a worker thread")
const port = parentPort

const { readFileSync } = await import("node:fs")
const typst = await import("@myriaddreamin/typst-ts-web-compiler")
const wasm = typst.initSync({ module: readFileSync(data.wasmPath) })

const builder = new typst.TypstCompilerBuilder()
builder.set_dummy_access_model()
for (const font of data.fonts) await builder.add_raw_font(new Uint8Array(font))
const compiler = await builder.build()
for (const file of data.bundle) compiler.add_source(file.path, file.text)

/** Diagnostics arrive as a Rust debug string; keep only the human-readable messages. */
const messagesOf = (/** @type {unknown} */ diagnostics) => {
  const text = typeof diagnostics === "string" ? diagnostics : String(diagnostics)
  return [...text.matchAll(/message: "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, "$1"))
}

port.on("message", (/** @type {{ id: number, main: string, inputs: Record<string, string>, shadows: { path: string, bytes: Uint8Array }[] }} */ task) => {
  for (const shadow of task.shadows) compiler.map_shadow(shadow.path, shadow.bytes)
  compiler.add_source("/main.typ", task.main)
  try {
    const result = compiler.compile("/main.typ", Object.entries(task.inputs), "pdf", 1)
    /** @type {Uint8Array} */
    const pdf = result.result
    const warnings = result.diagnostics ? messagesOf(JSON.stringify(result.diagnostics)) : []
    port.postMessage({ id: task.id, ok: true, pdf, warnings, memoryBytes: wasm.memory.buffer.byteLength }, [pdf.buffer])
  } catch (error) {
    // Typst reports a document it cannot typeset as a diagnostics string; anything else (a
    // RuntimeError from a trap, a failed memory.grow) leaves the instance unusable.
    const trapped = error instanceof Error
    const errors = trapped ? [`${error.name}: ${error.message}`] : messagesOf(error)
    port.postMessage({ id: task.id, ok: false, trapped, errors, memoryBytes: wasm.memory.buffer.byteLength })
    if (trapped) return
  }
  for (const shadow of task.shadows) compiler.unmap_shadow(shadow.path)
})
port.postMessage({ ready: true, loadedFonts: data.fonts.length })
