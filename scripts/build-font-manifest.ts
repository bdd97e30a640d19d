/**
 * Regenerates fonts/manifest.json from fonts/sources.json and the installed packages.
 * Run after changing a font package version or the list of files: `npm run fonts:manifest`, then
 * `npm run fonts:coverage` (scripts/build-font-coverage.ts) for the coverage it ships.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { type FontEntry, installedFontPath, manifestPath, packageRoot } from "../src/render/fonts/manifest.ts"
import { decodeWoff } from "../src/render/fonts/woff.ts"
import { sha256Hex } from "../src/shared/hash.ts"

interface Sources {
  readonly families: ReadonlyArray<{ package: string; family: string; files: ReadonlyArray<string>; woff?: string }>
}

const sources = JSON.parse(readFileSync(join(packageRoot, "fonts", "sources.json"), "utf8")) as Sources
const fonts: Array<FontEntry> = []
for (const source of sources.families) {
  const pkg = JSON.parse(readFileSync(installedFontPath({ package: source.package, file: "package.json" }), "utf8")) as {
    version: string
  }
  if (source.woff !== undefined) {
    // Published only as WOFF: pinned by the hash of the file the build decodes from it.
    const stem = source.family.replace(/ /g, "")
    const entry = { package: source.package, file: source.woff, decoded: `dist/fonts/${stem}-Regular.ttf` }
    fonts.push({
      family: source.family,
      style: "normal",
      weight: 400,
      version: pkg.version,
      ...entry,
      sha256: sha256Hex(decodeWoff(readFileSync(installedFontPath(entry))))
    })
    continue
  }
  for (const name of source.files) {
    const match = /^(\d{3})[A-Za-z]+(_Italic)?$/.exec(name)
    if (!match) throw new Error(`unexpected font file name ${name}`)
    const stem = source.family.replace(/ /g, "")
    const file = `${name}/${stem}_${name}.ttf`
    fonts.push({
      family: source.family,
      style: match[2] ? "italic" : "normal",
      weight: Number(match[1]),
      package: source.package,
      version: pkg.version,
      file,
      sha256: sha256Hex(readFileSync(installedFontPath({ package: source.package, file })))
    })
  }
}
writeFileSync(manifestPath, `${JSON.stringify({ fonts }, null, 2)}\n`)
console.log(`fonts/manifest.json: ${fonts.length} files`)
