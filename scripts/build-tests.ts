/**
 * npm test's build of the test files: each test file under test/ bundled with the sources it
 * imports, at the same path under .test-build/, which tap then runs with plain Node.
 *
 * Why: a test file run through tsx pays for its loader thread on every module it loads (tap's
 * own, Effect's hundreds, ours): 1 to 4 CPU-seconds of each test process, some 500 of a run
 * (docs/testing.md, "Test files built before the run"). A bundle loads in one read, as the
 * product's build does (scripts/build.ts).
 *
 * What runs is what tsx ran: the same sources, and the packages as published (no source patch:
 * test/render/source-patches.test.ts compares the patched parser with the published one). The
 * packages the product's build bundles are bundled here too (build.test.ts shows none of them
 * looks for files beside itself), with the product build's options; the product's EXTERNAL ones
 * and every development dependency our code imports (tap, the PDF readers, the browser driver)
 * load from node_modules, as they did. Each module of ours keeps its own location:
 * `import.meta.url`, `.dirname` and `.filename` become its source file's, so paths it computes
 * from them (packageRoot, fixtures beside a test) are unchanged.
 *
 * A single file still runs from its source: `npx tap` given its path (package.json's tap settings
 * load tsx). Not `npm test -- <path>`: npm test's tap runs plain Node, which cannot load `.ts`.
 *
 *   tsx scripts/build-tests.ts
 */
import { build, type Plugin, transform } from "esbuild"
import { readdirSync, readFileSync, rmSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { dirname, join, relative, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { buildOptions } from "./build.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const TEST_BUILD = join(root, ".test-build")

interface Manifest {
  readonly devDependencies: Record<string, string>
  readonly tap: { readonly exclude: ReadonlyArray<string> }
}
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Manifest

/** The folders of test/ that package.json's tap settings exclude, each written `test/<folder>/**`. */
const excludedFolders = new Set(
  manifest.tap.exclude.map((pattern) => {
    const folder = /^test\/([^/*]+)\/\*\*$/.exec(pattern)?.[1]
    if (folder === undefined) throw new Error(`tap's exclude ${pattern} is not a folder of test/: read it here too`)
    return folder
  })
)

/** The test files tap would run from the sources: package.json's tap include, less its excludes. */
const testFiles = (): Array<string> =>
  readdirSync(join(root, "test"), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".test.ts"))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((file) => !excludedFolders.has(file.split(sep)[1]!))
    .sort()

/** The package a bare import names: `@scope/name` or `name`, without a subpath. */
const packageOf = (specifier: string) => specifier.split("/", specifier.startsWith("@") ? 2 : 1).join("/")

/**
 * A development dependency our code imports loads from node_modules, as under tsx. One that a
 * bundled package imports is bundled with it, from where that package resolves it: Effect carries
 * a fast-check of its own, older than the suite's.
 */
const developmentPackagesExternal = (names: ReadonlySet<string>): Plugin => ({
  name: "development-packages-external",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path, importer }) =>
      !importer.includes(`${sep}node_modules${sep}`) && names.has(packageOf(path)) ? { path, external: true } : undefined
    )
  }
})

/**
 * Each of our modules sees its own source's location in import.meta, not the bundle's: esbuild
 * defines the three properties as the source's, in the code only (not in strings or comments),
 * and keeps a source map to the TypeScript that the bundle's map continues.
 */
const sourceLocations: Plugin = {
  name: "source-locations",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      if (path.includes(`${sep}node_modules${sep}`)) return undefined
      const { code } = await transform(await readFile(path, "utf8"), {
        loader: "ts",
        sourcefile: path,
        sourcemap: "inline",
        define: {
          "import.meta.url": JSON.stringify(pathToFileURL(path).href),
          "import.meta.dirname": JSON.stringify(dirname(path)),
          "import.meta.filename": JSON.stringify(path)
        }
      })
      return { contents: code, loader: "js" }
    })
  }
}

rmSync(TEST_BUILD, { recursive: true, force: true })
const files = testFiles()
// The product's build (scripts/build.ts), less its named entries, its source patches and its
// writing by hand.
await build({
  ...buildOptions,
  entryPoints: files,
  outbase: root,
  outdir: TEST_BUILD,
  // A class or function keeps its own name where the bundle renames it to avoid a clash: tap
  // matches a thrown error against the class a test expects by its name too.
  keepNames: true,
  // tap runs Node with --enable-source-maps: a failure's stack names the .ts lines.
  sourcemap: "linked",
  plugins: [developmentPackagesExternal(new Set(Object.keys(manifest.devDependencies))), sourceLocations],
  write: true
})
process.stdout.write(`built ${files.length} test files in ${relative(root, TEST_BUILD)}/\n`)
