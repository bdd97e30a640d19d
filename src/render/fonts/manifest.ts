/**
 * The pinned font set. Every file the compiler may use is listed in fonts/manifest.json with the
 * SHA-256 of its bytes; the renderer verifies each one at start, so a changed or missing font stops
 * it before it can produce a PDF whose provenance would lie.
 */
import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { sha256Hex } from "../../shared/hash.ts"
import { checkFontFile, type FontFile, fontMissing, FontSetError } from "./font-file.ts"

export interface FontEntry {
  readonly family: string
  readonly style: "normal" | "italic"
  readonly weight: number
  readonly package: string
  readonly version: string
  /** Path of the file inside its package. */
  readonly file: string
  /**
   * For a face its package publishes only as WOFF (which Typst does not read): where `npm run build`
   * writes the OpenType file decoded from `file` (scripts/build.ts), relative to the package root.
   * `sha256` is then the decoded file's.
   */
  readonly decoded?: string
  readonly sha256: string
}

export interface FontManifest {
  readonly fonts: ReadonlyArray<FontEntry>
}

/** A manifest entry whose file was found with the expected bytes when the renderer started. */
export interface VerifiedFont extends FontEntry, FontFile {}

export { FontSetError }

/**
 * The package's own folder: the nearest directory above this module with the font manifest, from
 * src/ and dist/ alike, in a checkout or installed (node_modules/pressroom/). The package's files
 * (fonts/manifest.json, typst-templates/, migrations/, dist/render-worker.js) are found from it,
 * and its dependencies (fonts, WebAssembly) through a require made at its package.json, which
 * Node resolves upward from there, into a consumer's node_modules where npm hoisted them.
 */
const findRoot = (from: string): string => {
  if (existsSync(join(from, "fonts", "manifest.json"))) return from
  const parent = dirname(from)
  if (parent === from) throw new Error("the Pressroom package (fonts/manifest.json) was not found above the running module")
  return findRoot(parent)
}

export const packageRoot = findRoot(dirname(fileURLToPath(import.meta.url)))
export const manifestPath = join(packageRoot, "fonts", "manifest.json")

const require = createRequire(join(packageRoot, "package.json"))

/**
 * Where the package carries its copy of the manifest's files, each under its font package's name
 * with that package's licences: `npm pack` writes them (scripts/pack-fonts.ts), so an installed
 * Pressroom needs none of the font packages, which hold every weight of every family.
 */
export const packagedFontsDir = join(packageRoot, "fonts", "files")

/** A file of an installed font package (a checkout's devDependencies; for a decoded face, the WOFF it is decoded from). */
export const installedFontPath = (entry: Pick<FontEntry, "package" | "file">): string =>
  join(dirname(require.resolve(`${entry.package}/package.json`)), entry.file)

/**
 * The file the compiler reads: a decoded face's build output (dist/, which the package carries),
 * else the packaged copy when there is one (an installed package), else the font package's own.
 */
export const fontFilePath = (entry: Pick<FontEntry, "package" | "file" | "decoded">): string => {
  if (entry.decoded !== undefined) return join(packageRoot, entry.decoded)
  const packaged = join(packagedFontsDir, entry.package, entry.file)
  return existsSync(packaged) ? packaged : installedFontPath(entry)
}

export const readManifest = (path = manifestPath): FontManifest => JSON.parse(readFileSync(path, "utf8")) as FontManifest

/** `fontSetSha256` (contract section 11): SHA-256 of the sorted list of font file hashes. */
export const fontSetSha256 = (manifest: FontManifest): string =>
  sha256Hex(
    manifest.fonts
      .map((font) => font.sha256)
      .sort()
      .join("\n")
  )

/** Checks every font of the manifest (throws a FontSetError naming the first bad file). */
export const verifyFonts = (manifest: FontManifest = readManifest()): ReadonlyArray<VerifiedFont> =>
  manifest.fonts.map((entry) => {
    // A decoded face is named by the file the build writes (npm install runs the build).
    const where = entry.decoded ?? `${entry.package}/${entry.file}`
    let path: string
    try {
      path = fontFilePath(entry)
    } catch {
      throw fontMissing(where) // its package is not installed
    }
    const font = { ...entry, path, where }
    checkFontFile(font)
    return font
  })
