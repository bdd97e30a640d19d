/**
 * One native typst.ts compiler (`@myriaddreamin/typst-ts-node-compiler`, the same release as the
 * WebAssembly one, so the same Typst and the same bytes) as a native worker runs it
 * (native-worker.ts). Its workspace is the template bundle's folder, so "/lib/…" and
 * "/templates/…" resolve as in the WebAssembly compiler; images are shadow files of one task.
 */
import { createRequire } from "node:module"
import { join } from "node:path"
import { CompileFailure, type CompileTask } from "./engine.ts"
import type { CompileBackend } from "./worker-loop.ts"

interface NodeCompiler {
  pdf(args: { mainFileContent: string }): Buffer
  mapShadow(path: string, content: Buffer): void
  unmapShadow(path: string): void
  evictCache(maxAge: number): void
}

interface NodeCompilerModule {
  readonly NodeCompiler: {
    create(args: { workspace: string; fontArgs: ReadonlyArray<{ fontPaths: ReadonlyArray<string> }> }): NodeCompiler
  }
}

export interface NativeCompilerSetup {
  /** The `.node` file to load (native-binary.ts): the one whose SHA-256 provenance records. */
  readonly binaryPath: string
  /** The template bundle's folder. */
  readonly workspace: string
  /** The font files of the verified manifest. */
  readonly fontPaths: ReadonlyArray<string>
}

/** Typst's diagnostics, as the binding puts them in the error's `code`: "0: message\n1: message". */
const diagnosticsOf = (code: string): Array<string> => code.split("\n").map((line) => line.replace(/^\d+: /, ""))

export const startNativeCompiler = (setup: NativeCompilerSetup): CompileBackend => {
  const { NodeCompiler } = createRequire(import.meta.url)(setup.binaryPath) as NodeCompilerModule
  const compiler = NodeCompiler.create({
    workspace: setup.workspace,
    // Font paths, not blobs: the compiler reads each file's face table at start and its glyphs
    // only when a document uses the face, as the WebAssembly workers do. With every font passed as
    // a blob, a worker held the whole set: 191 MiB resident after start against 83 MiB with paths,
    // for the same bytes (test/render/native-engine.test.ts compares them with the WebAssembly
    // engine's).
    fontArgs: [{ fontPaths: setup.fontPaths }]
  })
  const startedWith = process.memoryUsage.rss()
  return {
    compile: (task: CompileTask): Uint8Array => {
      const shadows = task.shadows.map((shadow) => join(setup.workspace, shadow.path))
      for (const [i, shadow] of task.shadows.entries()) compiler.mapShadow(shadows[i]!, Buffer.from(shadow.bytes))
      try {
        return new Uint8Array(compiler.pdf({ mainFileContent: task.main }))
      } catch (error) {
        // Typst refused the document: its diagnostics are the error's code. Anything else is a trap.
        const code = (error as { code?: unknown }).code
        if (typeof code === "string" && code.length > 0) throw new CompileFailure("rejected", diagnosticsOf(code))
        throw error
      } finally {
        for (const path of shadows) compiler.unmapShadow(path)
      }
    },
    // The binding exposes comemo's eviction, which the WebAssembly build does not (memo-eviction.ts).
    evict: (maxAge) => compiler.evictCache(maxAge),
    // What typesetting has added to the process since the compiler started (Typst's memory is Rust's
    // heap, outside anything V8 reports): the measure the WebAssembly workers' recycle threshold
    // applies to, their compiler's memory, without the runtime's and the fonts' tables.
    memoryBytes: () => Math.max(0, process.memoryUsage.rss() - startedWith),
    // The native compiler reads fonts itself; a file that fails to load is a missing face to Typst.
    isFontUnavailable: () => false
  }
}
