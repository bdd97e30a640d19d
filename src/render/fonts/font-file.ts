/**
 * Reading one font file of the pinned set and checking it against the manifest. Compiler workers
 * read a face from disk the first time a document needs it instead of holding the whole set in
 * memory, and check it again then: a file replaced while the server runs must fail the render,
 * not produce a PDF whose fontSetSha256 lies. Kept free of module-location logic so the worker
 * bundle can import it.
 */
import { readFileSync } from "node:fs"
import { fileSha256, sha256Hex } from "../../shared/hash.ts"

export interface FontFile {
  /** Absolute path of the file. */
  readonly path: string
  readonly sha256: string
  /** `package/file`, the name an error gives. */
  readonly where: string
}

export class FontSetError extends Error {
  readonly _tag = "FontSetError"
}

export const fontMissing = (where: string): FontSetError => new FontSetError(`font file missing: ${where} (run npm install)`)

/**
 * The file's bytes, or a FontSetError naming it when it is missing or differs from the manifest.
 * Typed as the Uint8Array it is: the package's declarations include this module, and a project
 * that embeds the renderer need not have Node's type definitions installed.
 */
export const readFontFile = (font: FontFile): Uint8Array => {
  let bytes: Uint8Array
  try {
    bytes = readFileSync(font.path)
  } catch {
    throw fontMissing(font.where)
  }
  expectHash(font, sha256Hex(bytes))
  return bytes
}

const expectHash = (font: FontFile, actual: string) => {
  if (actual !== font.sha256) {
    throw new FontSetError(`font file differs from fonts/manifest.json: ${font.where} has sha256 ${actual}, expected ${font.sha256}`)
  }
}

/** Checks the file against the manifest without keeping its bytes (a FontSetError as readFontFile's). */
export const checkFontFile = (font: FontFile): void => {
  let actual: string
  try {
    actual = fileSha256(font.path)
  } catch {
    throw fontMissing(font.where)
  }
  expectHash(font, actual)
}
