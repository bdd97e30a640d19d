/**
 * The build (scripts/build.ts) moves the packages it bundles into dist/: none of them may look for
 * files beside itself, which it would then look for in dist/, nor require or import a path it
 * computes. A package that does belongs in EXTERNAL.
 */
import t from "tap"
import { build } from "esbuild"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { buildOptions, EXTERNAL } from "../../scripts/build.ts"
import { packageRoot } from "../../src/render/fonts/manifest.ts"

t.test("no package the build bundles looks for files beside itself", async (t) => {
  const { metafile, warnings } = await build({ ...buildOptions, metafile: true, logLevel: "silent" })
  // How a module finds its own files.
  const locating = /import\.meta\.(url|dirname|filename|resolve)|__dirname|__filename|require\.resolve/
  /** Files read and found harmless. */
  const reviewed = new Set(["node_modules/undici/index.js"]) // __filename behind a typeof guard, for stack traces
  const packages = Object.keys(metafile.inputs).filter((input) => input.includes("node_modules/"))
  t.ok(packages.length > 100, `${packages.length} package files bundled`)
  const offenders = packages.filter((input) => !reviewed.has(input) && locating.test(readFileSync(join(packageRoot, input), "utf8")))
  t.same(offenders, [], `no bundled package file locates itself (else add its package to EXTERNAL: ${EXTERNAL.join(", ")})`)
  const computed = warnings.filter((warning) => warning.id === "unsupported-require-call" || warning.id === "unsupported-dynamic-import")
  t.same(
    computed.map((warning) => `${warning.location?.file}: ${warning.text}`),
    [],
    "no require or import of a computed path"
  )
})
