/**
 * The native typst.ts compiler (`@myriaddreamin/typst-ts-node-compiler`, an optional dependency of
 * the same release as the WASM compiler) behind the same engine interface. It gives byte-identical
 * PDFs; the benchmark uses it as the baseline and a test checks the identity. It typesets on the
 * calling thread, without a deadline, so it is not a replacement for the pool in a server as it
 * stands. For the same reason it cannot be cancelled mid-compile: an abort signal is honoured only
 * if it has fired before the job starts.
 */
import { createRequire } from "node:module"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { sha256Hex } from "../../shared/hash.ts"
import { readFontFile } from "../fonts/font-file.ts"
import type { VerifiedFont } from "../fonts/manifest.ts"
import { packageRoot } from "../fonts/manifest.ts"
import { templatesRoot } from "./bundle.ts"
import { loadLatexParser, mayHoldMath } from "../math/latex-parser.ts"
import { type TypesetJob, type TypesetResult, typesetDocument } from "../typeset.ts"
import { cancelled, CompileFailure, type CompileTask, noWorkerReplacements, type TypstEngine } from "./engine.ts"
import { TYPST_VERSION } from "./wasm-pool.ts"

const packageName = "@myriaddreamin/typst-ts-node-compiler"

interface NodeCompiler {
  pdf(args: { mainFileContent: string }): Buffer
  mapShadow(path: string, content: Buffer): void
  unmapShadow(path: string): void
  evictCache(maxAge: number): void
}

export const createNativeEngine = async (fonts: ReadonlyArray<VerifiedFont>): Promise<TypstEngine> => {
  const require = createRequire(join(packageRoot, "package.json"))
  const { NodeCompiler } = (await import(packageName)) as {
    NodeCompiler: { create(args: { workspace: string; fontArgs: ReadonlyArray<{ fontBlobs: ReadonlyArray<Buffer> }> }): NodeCompiler }
  }
  const version = (require(`${packageName}/package.json`) as { version: string }).version
  const binary = require.resolve(`${packageName}-linux-x64-gnu`)
  // The workspace is the template bundle, so "/lib/..." and "/templates/..." resolve as in the pool.
  const compiler = NodeCompiler.create({
    workspace: templatesRoot,
    // The compiler takes Buffers: a view of each font's bytes, not a copy.
    fontArgs: [{ fontBlobs: fonts.map(readFontFile).map((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) }]
  })
  const compile = (task: CompileTask): Uint8Array => {
    const shadows = task.shadows.map((shadow) => join(templatesRoot, shadow.path))
    for (const [i, shadow] of task.shadows.entries()) compiler.mapShadow(shadows[i]!, Buffer.from(shadow.bytes))
    try {
      return new Uint8Array(compiler.pdf({ mainFileContent: task.main }))
    } catch (error) {
      throw new CompileFailure("rejected", [String(error).slice(0, 500)])
    } finally {
      for (const path of shadows) compiler.unmapShadow(path)
      // Unlike the WebAssembly build, the native compiler exposes Typst's memo-cache eviction.
      compiler.evictCache(10)
    }
  }
  return {
    engineVersion: `typst ${TYPST_VERSION} (typst.ts ${version}, native)`,
    typstVersion: TYPST_VERSION,
    releaseChecksum: sha256Hex(readFileSync(binary)),
    typeset: async (job: TypesetJob, signal?: AbortSignal): Promise<TypesetResult> => {
      if (signal?.aborted) throw cancelled()
      if (mayHoldMath(job.markdown)) await loadLatexParser()
      return typesetDocument(job, compile)
    },
    workerReplacements: () => noWorkerReplacements,
    close: async () => {}
  }
}
