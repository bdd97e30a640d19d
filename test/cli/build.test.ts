/**
 * The build (scripts/build.ts) moves the packages it bundles into dist/: none of them may look for
 * files beside itself, which it would then look for in dist/, nor require or import a path it
 * computes. A package that does belongs in EXTERNAL. The fixes it carries for bundled packages
 * reach what it builds.
 */
import t from "tap"
import { build } from "esbuild"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { buildOptions, EXTERNAL } from "../../scripts/build.ts"
import { packageRoot } from "../../src/render/fonts/manifest.ts"

const { metafile, warnings, outputFiles } = await build({ ...buildOptions, metafile: true, logLevel: "silent" })

t.test("no package the build bundles looks for files beside itself", async (t) => {
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

t.test("the build applies the fixes it carries (scripts/source-patches.ts): the render workers run them", async (t) => {
  const bundled = outputFiles.map((file) => file.text).join("\n")
  t.ok(bundled.includes("events.length = write;"), "micromark's linear text resolver is in the bundle")
  t.notOk(bundled.includes("events.splice(enter + 2, index - enter - 2)"), "its quadratic one is not")
  t.ok(bundled.includes("openings.push("), "its attention resolver that nests a run's groups in one pass is in the bundle")
  t.notOk(
    bundled.includes(
      "nextEvents = push(nextEvents, resolveAll(context.parser.constructs.insideSpan.null, events.slice(open + 1, index), context))"
    ),
    "the published one, which resolves and splices again for every group, is not"
  )
  t.ok(bundled.includes("._pressroomUnbalancedBracket = found"), "GFM's literal autolinks remember the unclosed bracket a walk found")
  t.ok(bundled.includes("._pressroomFootnoteWalk = index < 0"), "GFM's footnote calls remember where a walk stopped")
  t.ok(bundled.includes("group._pressroomEvents = events.length - open"), "closed links and images are passed over, not resolved again")
  t.ok(bundled.includes("defined = self.parser.defined.length > 0 &&"), "a label is looked up only where there are definitions")
  t.ok(bundled.includes("._pressroomLabelText = token"), "a label's text is read only for references")
})
