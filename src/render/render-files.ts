/**
 * A render written to files: the PDF and, beside it, the provenance record (`sha256`, `pageCount`,
 * `warnings`, `provenance`) that `pressroom render --provenance` and the GitHub Action both write
 * (contract section 14: the same JSON).
 */
import { renameSync, writeFileSync } from "node:fs"
import type { RenderResult } from "./renderer.ts"

/** Writes next to the target and renames, so a failed run never leaves half a file behind. */
export const writeAtomically = (path: string, data: Uint8Array | string): void => {
  const temporary = `${path}.${process.pid}.partial`
  writeFileSync(temporary, data)
  renameSync(temporary, path)
}

/** The provenance record of a render, as its file holds it. */
export const provenanceRecordText = (result: RenderResult): string => {
  const record = { sha256: result.sha256, pageCount: result.pageCount, warnings: result.warnings, provenance: result.provenance }
  return `${JSON.stringify(record, null, 2)}\n`
}

/** The PDF at `pdfPath`, then its provenance record at `provenancePath` when one is asked for. */
export const writeRenderFiles = (result: RenderResult, pdfPath: string, provenancePath?: string): void => {
  writeAtomically(pdfPath, result.pdf)
  if (provenancePath) writeAtomically(provenancePath, provenanceRecordText(result))
}
