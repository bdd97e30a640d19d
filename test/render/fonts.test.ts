/**
 * The pinned font set: every file of fonts/manifest.json is there with its hash; a changed or
 * missing file stops the renderer with an error naming it; fontSetSha256 follows the hashes.
 */
import t from "tap"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  FontSetError,
  fontFilePath,
  fontSetSha256,
  installedFontPath,
  verifyFonts,
  readManifest,
  type FontManifest
} from "../../src/render/fonts/manifest.ts"
import { decodeWoff } from "../../src/render/fonts/woff.ts"
import { coveragePath, recordedCoverage } from "../../src/render/fonts/coverage.ts"
import { sha256 } from "../helpers/render.ts"

const manifest = readManifest()

t.test("STIX Two Math, published only as WOFF, decodes to the pinned bytes every time, with its MATH table", async (t) => {
  const entry = manifest.fonts.find((f) => f.family === "STIX Two Math")
  if (entry === undefined) return void t.fail("STIX Two Math is in the manifest")
  t.ok(entry.file.endsWith(".woff") && entry.decoded !== undefined, "listed with the WOFF and where the build decodes it")
  const woff = readFileSync(installedFontPath(entry))
  const decoded = decodeWoff(woff)
  t.equal(sha256(decoded), entry.sha256, "the manifest pins the decoded file")
  t.equal(sha256(decodeWoff(woff)), entry.sha256, "decoding again gives the same bytes")
  const tables = Array.from({ length: decoded.readUInt16BE(4) }, (_, i) => decoded.toString("latin1", 12 + i * 16, 16 + i * 16))
  t.ok(tables.includes("MATH"), `tables: ${tables.join(", ")}`)
  t.throws(() => decodeWoff(new Uint8Array(64)), /not a WOFF 1 file/, "anything else is refused")
})

t.test("every manifest entry exists and matches its sha256", async (t) => {
  t.ok(manifest.fonts.length >= 10, `${manifest.fonts.length} fonts listed`)
  for (const entry of manifest.fonts) {
    const where = `${entry.package}/${entry.file}`
    let bytes: Buffer
    try {
      bytes = readFileSync(fontFilePath(entry))
    } catch {
      t.fail(`${where} exists`)
      continue
    }
    t.equal(sha256(bytes), entry.sha256, `${where} sha256`)
    t.match(entry.sha256, /^[a-f0-9]{64}$/)
  }
  const families = new Set(manifest.fonts.map((f) => f.family))
  for (const family of [
    "Inter",
    "JetBrains Mono",
    "Noto Sans JP",
    "Noto Sans SC",
    "Noto Sans KR",
    "Amiri",
    "Noto Sans Devanagari",
    "Noto Sans Symbols 2"
  ]) {
    t.ok(families.has(family), `${family} is in the set`)
  }
  t.equal(verifyFonts(manifest).length, manifest.fonts.length, "verifyFonts accepts the real manifest")
})

const withEntry = (index: number, change: Partial<FontManifest["fonts"][number]>): FontManifest => ({
  fonts: manifest.fonts.map((entry, i) => (i === index ? { ...entry, ...change } : entry))
})

t.test("a wrong sha256 throws a FontSetError naming the file", async (t) => {
  const index = 3
  const entry = manifest.fonts[index]!
  const bad = withEntry(index, { sha256: "0".repeat(64) })
  try {
    verifyFonts(bad)
    t.fail("verifyFonts should throw")
  } catch (error) {
    t.type(error, FontSetError)
    t.ok((error as Error).message.includes(entry.file), "message names the file", { message: (error as Error).message })
    t.ok((error as Error).message.includes(entry.package), "message names the package")
  }
})

t.test("a missing file throws a FontSetError naming the file", async (t) => {
  const index = manifest.fonts.findIndex((f) => f.decoded === undefined)
  const missing = withEntry(index, { file: "400Regular/NoSuchFont_400Regular.ttf" })
  try {
    verifyFonts(missing)
    t.fail("verifyFonts should throw")
  } catch (error) {
    t.type(error, FontSetError)
    t.match((error as Error).message, /missing/)
    t.ok((error as Error).message.includes("NoSuchFont_400Regular.ttf"), "message names the file", { message: (error as Error).message })
  }
})

t.test("fontSetSha256 follows the hashes, not their order", async (t) => {
  const base = fontSetSha256(manifest)
  t.match(base, /^[a-f0-9]{64}$/)
  t.equal(fontSetSha256(manifest), base, "stable")
  t.equal(fontSetSha256({ fonts: [...manifest.fonts].reverse() }), base, "independent of entry order")
  t.not(fontSetSha256(withEntry(0, { sha256: "f".repeat(64) })), base, "changes when one hash changes")
  t.not(fontSetSha256({ fonts: manifest.fonts.slice(1) }), base, "changes when a font is removed")
})

t.test("recorded coverage is used only for the font set and typst.ts release it was computed for", async (t) => {
  const root = mkdtempSync(join(tmpdir(), "pressroom-coverage-"))
  t.equal(recordedCoverage(root, "a".repeat(64), "0.7.0"), undefined, "no file: computed at start instead")
  mkdirSync(join(root, "fonts"))
  const ranges = [
    [32, 126],
    [160, 255]
  ]
  writeFileSync(coveragePath(root), JSON.stringify({ fontSetSha256: "a".repeat(64), typstTs: "0.7.0", ranges }))
  t.same(recordedCoverage(root, "a".repeat(64), "0.7.0"), ranges, "the same font set and release: read")
  t.equal(recordedCoverage(root, "b".repeat(64), "0.7.0"), undefined, "another font set: computed instead")
  t.equal(recordedCoverage(root, "a".repeat(64), "0.8.0"), undefined, "another release: computed instead")
})
