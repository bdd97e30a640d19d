/**
 * Compiles a Typst document with the native typst.ts compiler of the release we ship (its PDFs are
 * byte-identical to the WASM pool's) and returns its errors and warnings: the WASM build reports
 * errors only, and a formula that typesets with a warning is a failure too.
 */
import { join } from "node:path"
import { readFontFile } from "../../src/render/fonts/font-file.ts"
import { packageRoot, verifyFonts } from "../../src/render/fonts/manifest.ts"

interface Diagnostics {
  readonly shortDiagnostics: ReadonlyArray<{ readonly message: string; readonly severity?: string }>
}
interface CompileResult {
  readonly result: unknown
  takeWarnings(): Diagnostics | null
  takeError(): Diagnostics | null
}
interface NodeCompiler {
  compile(args: { mainFileContent: string }): CompileResult
  evictCache(maxAge: number): void
}

export interface TypstCheck {
  readonly errors: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

export const startTypstChecker = async (): Promise<(source: string) => TypstCheck> => {
  const { NodeCompiler } = (await import("@myriaddreamin/typst-ts-node-compiler")) as unknown as {
    NodeCompiler: { create(args: { workspace: string; fontArgs: ReadonlyArray<{ fontBlobs: ReadonlyArray<Buffer> }> }): NodeCompiler }
  }
  const blobs = verifyFonts()
    .map(readFontFile)
    .map((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
  // The templates' folder is the root, as the renderer's: a document imports "/lib/pressroom.typ".
  const compiler = NodeCompiler.create({ workspace: join(packageRoot, "typst-templates"), fontArgs: [{ fontBlobs: blobs }] })
  const messages = (d: Diagnostics | null) => (d?.shortDiagnostics ?? []).map((x) => x.message)
  return (source) => {
    const result = compiler.compile({ mainFileContent: source })
    const check = { errors: messages(result.takeError()), warnings: messages(result.takeWarnings()) }
    compiler.evictCache(10)
    return check
  }
}

/** A page of formulas in Noto Sans Math, each in its own paragraph, with the template library the converter's markup calls. */
export const mathDocument = (formulas: ReadonlyArray<{ readonly typst: string; readonly display: boolean }>): string =>
  [
    `#import "/lib/pressroom.typ" as pr`,
    `#set text(font: "Noto Serif")`,
    `#show math.equation: set text(font: "Noto Sans Math")`,
    ...formulas.map((f) => (f.display ? `$ ${f.typst} $\n` : `Inline $${f.typst}$ text.\n`))
  ].join("\n")
