/**
 * One typst.ts WASM compiler as a render worker runs it. The compiler gets the dummy access model:
 * it can read nothing but the sources and shadow files we hand it (the template bundle, the
 * generated main file, decoded images), and it has no package registry, so `@preview` imports and
 * file reads outside the bundle fail inside Typst. typst.ts's glue holds one instance per thread.
 */
import * as typst from "@myriaddreamin/typst-ts-web-compiler"
import { type FontFile, readFontFile } from "../fonts/font-file.ts"
import type { BundleFile } from "./bundle.ts"
import { CompileFailure, type CompileTask } from "./engine.ts"
import { FUNCTION_TABLE_EXPORT, MemoCache, type MemoLayout } from "./memo-eviction.ts"
import { FontUnavailable, Trapped } from "./trap-report.ts"

/** Typst's description of the faces in one font file (typst.ts `get_font_info`), coverage included. */
export interface FontInfo {
  readonly info: ReadonlyArray<{ readonly coverage: ReadonlyArray<number> }>
}

export interface CompilerSetup {
  /** The compiler, with its function table exported (table-export.ts). */
  readonly module: WebAssembly.Module
  /** Where comemo's statics lie in this binary; undefined when none is recorded (no eviction). */
  readonly memoLayout: MemoLayout | undefined
  readonly fonts: ReadonlyArray<FontFile>
  /** The fonts' descriptions, when another instance has computed them already (in `fonts` order). */
  readonly fontInfos: ReadonlyArray<FontInfo> | undefined
  readonly bundle: ReadonlyArray<BundleFile>
}

export interface WasmCompiler {
  /** The PDF, or a CompileFailure ("rejected") for a document Typst refuses; throws Trapped otherwise. */
  readonly compile: (task: CompileTask) => Uint8Array
  /** Typst's memo cache, when the binary's memo layout is known. */
  readonly memo: MemoCache | undefined
  readonly memoryBytes: () => number
  readonly fontInfos: ReadonlyArray<FontInfo>
  /** The instance's memory and function table, for `npm run memo-layout`. */
  readonly memory: WebAssembly.Memory
  readonly functionTable: WebAssembly.Table
}

/** Typst reports a document it cannot typeset as a string of diagnostics: keep their messages. */
const messagesOf = (diagnostics: unknown): Array<string> =>
  [...String(diagnostics).matchAll(/message: "((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? "").replace(/\\(.)/g, "$1"))

export const startCompiler = async (setup: CompilerSetup): Promise<WasmCompiler> => {
  // The module is compiled once by the pool and shared: no instance compiles the 28 MB binary again.
  const wasm = typst.initSync({ module: setup.module })
  const table = (wasm as unknown as Record<string, WebAssembly.Table>)[FUNCTION_TABLE_EXPORT]
  if (!table) throw new Error("the compiler module does not export its function table")

  // Fonts load lazily, from disk: Typst asks for a file's bytes the first time a document uses
  // it, so a Latin document never brings the CJK faces into this instance's memory, and no copy of
  // the set is kept anywhere else. Describing a font means parsing all of it, so only the pool's
  // first worker does that; workers that replace it start from its descriptions.
  const resolver = new typst.TypstFontResolverBuilder()
  const builder = new typst.TypstCompilerBuilder()
  builder.set_dummy_access_model()
  const fontInfos = setup.fontInfos ?? setup.fonts.map((font) => resolver.get_font_info(readFontFile(font)) as FontInfo)
  /** Why a face could not be loaded: the render that needed it fails, and the instance is dropped. */
  let fontProblem: string | undefined
  for (const [index, font] of setup.fonts.entries()) {
    await builder.add_lazy_font(fontInfos[index], () => {
      try {
        return readFontFile(font)
      } catch (error) {
        fontProblem = (error as Error).message
        throw error
      }
    })
  }
  const compiler = await builder.build()
  for (const file of setup.bundle) compiler.add_source(file.path, file.text)

  const cleanUp = (task: CompileTask): void => {
    for (const shadow of task.shadows) compiler.unmap_shadow(shadow.path)
    // Evicts typst.ts's own file cache (earlier main files, images) that recent compiles did not
    // use; Typst's memo cache is the caller's to evict (memo-eviction.ts).
    compiler.reset()
  }

  const compile = (task: CompileTask): Uint8Array => {
    for (const shadow of task.shadows) compiler.map_shadow(shadow.path, shadow.bytes)
    compiler.add_source("/main.typ", task.main)
    let pdf: Uint8Array
    try {
      pdf = (compiler.compile("/main.typ", undefined, "pdf", 1) as { result: Uint8Array }).result
    } catch (error) {
      // After a trap nothing more may be asked of the instance.
      if (fontProblem) throw new FontUnavailable(fontProblem)
      if (error instanceof Error) throw new Trapped(`${error.name}: ${error.message}`)
      cleanUp(task)
      throw new CompileFailure("rejected", messagesOf(error))
    }
    // Typst takes a face that fails to load for a missing one and typesets on without it.
    if (fontProblem) throw new FontUnavailable(fontProblem)
    cleanUp(task)
    return pdf
  }

  return {
    compile,
    memo: setup.memoLayout && new MemoCache(wasm.memory, table, setup.memoLayout),
    memoryBytes: () => wasm.memory.buffer.byteLength,
    fontInfos,
    memory: wasm.memory,
    functionTable: table
  }
}
