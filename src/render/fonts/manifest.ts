/**
 * The pinned font set. Every file the compiler may use is listed in fonts/manifest.json with the
 * SHA-256 of its bytes; loading verifies each one, so a changed or missing font stops the renderer
 * before it can produce a PDF whose provenance would lie.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { sha256Hex } from "../../shared/hash.ts"

export interface FontEntry {
  readonly family: string
  readonly style: "normal" | "italic"
  readonly weight: number
  readonly package: string
  readonly version: string
  /** Path of the file inside its package. */
  readonly file: string
  readonly sha256: string
}

export interface FontManifest {
  readonly fonts: ReadonlyArray<FontEntry>
}

export interface LoadedFont extends FontEntry {
  /** The file's bytes in shared memory, so that every compiler worker reads the same copy. */
  readonly bytes: Uint8Array<SharedArrayBuffer>
}

export class FontSetError extends Error {
  readonly _tag = "FontSetError"
}

export const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
export const manifestPath = join(repositoryRoot, "fonts", "manifest.json")

const require = createRequire(join(repositoryRoot, "package.json"))

export const fontFilePath = (entry: Pick<FontEntry, "package" | "file">): string =>
  join(dirname(require.resolve(`${entry.package}/package.json`)), entry.file)

export const readManifest = (path = manifestPath): FontManifest =>
  JSON.parse(readFileSync(path, "utf8")) as FontManifest

/** `fontSetSha256` (contract section 11): SHA-256 of the sorted list of font file hashes. */
export const fontSetSha256 = (manifest: FontManifest): string =>
  sha256Hex(manifest.fonts.map((font) => font.sha256).sort().join("\n"))

const readShared = (path: string): Uint8Array<SharedArrayBuffer> => {
  const fd = openSync(path, "r")
  try {
    const bytes = new Uint8Array(new SharedArrayBuffer(fstatSync(fd).size))
    let offset = 0
    while (offset < bytes.byteLength) {
      const read = readSync(fd, bytes, offset, bytes.byteLength - offset, offset)
      if (read === 0) break // shorter than it was a moment ago: the hash check names the file
      offset += read
    }
    return bytes
  } finally {
    closeSync(fd)
  }
}

/** Reads every font of the manifest and checks its hash; throws naming the first bad file. */
export const loadFonts = (manifest: FontManifest = readManifest()): ReadonlyArray<LoadedFont> =>
  manifest.fonts.map((entry) => {
    let bytes: Uint8Array<SharedArrayBuffer>
    const where = `${entry.package}/${entry.file}`
    try {
      bytes = readShared(fontFilePath(entry))
    } catch {
      throw new FontSetError(`font file missing: ${where} (run npm install)`)
    }
    const actual = sha256Hex(bytes)
    if (actual !== entry.sha256) {
      throw new FontSetError(`font file differs from fonts/manifest.json: ${where} has sha256 ${actual}, expected ${entry.sha256}`)
    }
    return { ...entry, bytes }
  })
