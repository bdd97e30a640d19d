/**
 * `npm pack`'s prepack: copies the files of fonts/manifest.json (but the decoded ones, which are in dist/), and each font package's licences
 * (LICENSE_FONT, the SIL Open Font License the fonts require to travel with them; LICENSE, the
 * package's own), from the checkout's font packages into fonts/files/, which the package carries
 * instead of depending on those packages (src/render/fonts/manifest.ts, `packagedFontsDir`). Each
 * copy is checked against the manifest's SHA-256, and written under a temporary name then renamed,
 * so a renderer starting meanwhile sees a file whole or not at all.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from "node:fs"
import { dirname, join } from "node:path"
import { installedFontPath, packagedFontsDir, readManifest } from "../src/render/fonts/manifest.ts"
import { sha256Hex } from "../src/shared/hash.ts"

const LICENCES = ["LICENSE_FONT", "LICENSE"]

const copy = (from: string, to: string, sha256?: string) => {
  if (sha256 !== undefined && existsSync(to) && sha256Hex(readFileSync(to)) === sha256) return
  mkdirSync(dirname(to), { recursive: true })
  const partial = `${to}.partial`
  copyFileSync(from, partial)
  if (sha256 !== undefined && sha256Hex(readFileSync(partial)) !== sha256) {
    throw new Error(`${from} differs from fonts/manifest.json: run npm ci, or npm run fonts:manifest after changing a font package`)
  }
  renameSync(partial, to)
}

const { fonts } = readManifest()
// A decoded face (STIX Two Math, published only as WOFF) travels in dist/ as the build decoded it.
const copied = fonts.filter((font) => font.decoded === undefined)
for (const font of copied) copy(installedFontPath(font), join(packagedFontsDir, font.package, font.file), font.sha256)
const packages = [...new Set(fonts.map((font) => font.package))]
for (const name of packages) {
  // Google Fonts' packages carry both; Fontsource's carries the Open Font License as LICENSE.
  const licences = LICENCES.filter((licence) => existsSync(installedFontPath({ package: name, file: licence })))
  if (licences.length === 0) throw new Error(`${name} has no licence file (${LICENCES.join(" or ")})`)
  for (const licence of licences) copy(installedFontPath({ package: name, file: licence }), join(packagedFontsDir, name, licence))
}
console.log(`fonts/files: ${copied.length} font files and the licences of ${packages.length} packages`)
