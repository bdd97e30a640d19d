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
 * looks for files beside itself); the product's EXTERNAL ones and every development dependency
 * (tap, the PDF readers, the browser driver) load from node_modules, as they did. Each module of
 * ours keeps its own location: `import.meta.url`, `.dirname` and `.filename` become its source
 * file's, so paths it computes from them (packageRoot, fixtures beside a test) are unchanged.
 *
 * A single file still runs from its source: `npx tap` given its path (package.json's tap settings
 * load tsx).
 *
 *   tsx scripts/build-tests.ts
 */
import { build, type Plugin } from "esbuild"
import { readdirSync, readFileSync, rmSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { dirname, join, relative, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { EXTERNAL, NODE_REQUIRE_BANNER } from "./build.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const TEST_BUILD = join(root, ".test-build")

/** The test files tap would run from the sources: package.json's tap include, less its excludes. */
const testFiles = (): Array<string> =>
  readdirSync(join(root, "test"), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".test.ts"))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((file) => !["helpers", "fixtures", "types"].includes(file.split(sep)[1]!))
    .sort()

/** Every development dependency, with its subpaths: loaded from node_modules, as under tsx. */
const developmentPackages = (): Array<string> => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> }
  return Object.keys(manifest.devDependencies).flatMap((name) => [name, `${name}/*`])
}

const IMPORT_META = /\bimport\.meta\.(url|dirname|filename)\b/g

/** Each of our modules sees its own source's location in import.meta, not the bundle's. */
const sourceLocations: Plugin = {
  name: "source-locations",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      if (path.includes(`${sep}node_modules${sep}`)) return undefined
      const where = { url: pathToFileURL(path).href, dirname: dirname(path), filename: path }
      const source = await readFile(path, "utf8")
      return { contents: source.replace(IMPORT_META, (_, field: keyof typeof where) => JSON.stringify(where[field])), loader: "ts" }
    })
  }
}

rmSync(TEST_BUILD, { recursive: true, force: true })
const files = testFiles()
await build({
  entryPoints: files,
  outbase: root,
  outdir: TEST_BUILD,
  bundle: true,
  external: [...EXTERNAL, ...developmentPackages()],
  // Code many test files share (Effect, the platform) is one chunk on disk, not 127 copies.
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  format: "esm",
  platform: "node",
  target: "node20",
  // A class or function keeps its own name where the bundle renames it to avoid a clash: tap
  // matches a thrown error against the class a test expects by its name too.
  keepNames: true,
  // tap runs Node with --enable-source-maps: a failure's stack names the .ts lines.
  sourcemap: "linked",
  banner: NODE_REQUIRE_BANNER,
  absWorkingDir: root,
  plugins: [sourceLocations],
  logLevel: "warning"
})
process.stdout.write(`built ${files.length} test files in ${relative(root, TEST_BUILD)}/\n`)
