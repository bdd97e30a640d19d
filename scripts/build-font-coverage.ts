/**
 * Writes fonts/coverage.json: the code points the font set covers, as the typst.ts WebAssembly
 * compiler computes them, recorded with the font set and the release it was computed for, so that
 * a native renderer reads it instead of starting a WebAssembly compiler to ask (renderer.ts,
 * `typstCoverage`). Run after `npm run fonts:manifest` or a typst.ts upgrade, once `npm run build`
 * has decoded the fonts: `npm run fonts:coverage`. test/render/native-engine.test.ts fails while
 * the file is out of date.
 */
import { writeFileSync } from "node:fs"
import { compilerRelease } from "../src/render/engine/wasm-pool.ts"
import { readBundle } from "../src/render/engine/bundle.ts"
import { coveragePath, type RecordedCoverage } from "../src/render/fonts/coverage.ts"
import { fontSetSha256, packageRoot, readManifest, verifyFonts } from "../src/render/fonts/manifest.ts"
import { typstCoverage } from "../src/render/renderer.ts"

const manifest = readManifest()
const recorded: RecordedCoverage = {
  fontSetSha256: fontSetSha256(manifest),
  typstTs: compilerRelease().version,
  ranges: await typstCoverage(verifyFonts(manifest), readBundle())
}
writeFileSync(coveragePath(packageRoot), `${JSON.stringify(recorded)}\n`)
console.log(
  `${coveragePath(packageRoot)}: ${recorded.ranges.length} ranges for font set ${recorded.fontSetSha256}, typst.ts ${recorded.typstTs}`
)
