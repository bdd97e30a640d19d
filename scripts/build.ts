/**
 * npm run build: the JavaScript that Node runs, in dist/. `npm install` runs it (the `prepare`
 * script) and `npm test` runs it first (`pretest`); nothing checks or rebuilds it at run time.
 * - dist/pressroom.js, the pressroom command (bin/pressroom.js imports it), with what its commands
 *   import dynamically in dist/chunks/: a command loads only its own modules, so `pressroom --help`
 *   and the account commands load neither the HTTP server nor the renderer.
 * - dist/index.js, the library (package.json's "exports" ".": `import { render } from "pressroom"`),
 *   sharing its chunks with the command.
 * - dist/render-worker.js, the compiler worker that the pool starts under Node, and under Deno
 *   when the library runs from dist/ (src/render/engine/render-worker-url.ts).
 * - dist/convert-worker.js, the thread in which each WebAssembly worker converts Markdown to Typst
 *   (src/render/engine/converter.ts).
 * - dist/native-worker.js, the native engine's compiler worker, a child process of the pool
 *   (src/render/engine/native-pool.ts).
 * - dist/client.js, the HTTP client ("exports" "./client"): a build of its own, without splitting,
 *   so that no chunk shared with the renderer can pull the renderer, fonts, WebAssembly or
 *   database code into a client's process.
 * - any other entry named on the command line, as dist/<its path>.js: the benchmarks build theirs
 *   (npm run bench:render builds bench/render.ts into dist/bench/render.js), so that what they
 *   measure is the code Node runs in production, not a TypeScript loader.
 * Node runs them as bundles, not through a TypeScript loader: tsx runs a loader thread and keeps
 * every module it transformed, about 80 MiB of a process that renders (docs/performance.md, "Memory").
 * Bundling the packages too spares Node resolving and loading Effect's thousands of module files
 * one by one.
 *
 *   tsx scripts/build.ts [entry.ts ...]
 */
import { build, type BuildOptions } from "esbuild"
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { fontFilePath, installedFontPath, readManifest } from "../src/render/fonts/manifest.ts"
import { decodeWoff } from "../src/render/fonts/woff.ts"
import { sourcePatches } from "./source-patches.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const dist = join(root, "dist")

/**
 * Packages left to node_modules: those that find files installed beside them through
 * import.meta.url or __dirname (PGlite's, Typst's and mupdf's WebAssembly, esbuild's binary,
 * autocannon's workers and help, msgpackr's optional native decoder, playwright-core's package
 * files and WebAssembly, for bench/compare.ts) and pg with its family, whose optional
 * native binding a bundle cannot resolve (pg-cursor requires pg's own files).
 * test/cli/build.test.ts fails when a bundled package would look for its files. None of these
 * imports a package that the bundle holds, so no package runs as two copies.
 */
export const EXTERNAL = [
  "@electric-sql/pglite",
  "@electric-sql/pglite/*",
  "@myriaddreamin/*",
  "mupdf",
  "autocannon",
  "playwright-core",
  "msgpackr",
  "msgpackr-extract",
  "esbuild",
  "pg",
  "pg/*",
  "pg-*"
]

/**
 * CommonJS packages in a bundle (yaml, among others) require Node's built-ins: every module of it
 * gets a require. The worker needs it as much as the command does.
 */
export const NODE_REQUIRE_BANNER = {
  js: `import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);`
}

export const buildOptions = {
  // Named entries: fixed names that bin/pressroom.js and the pool can find.
  entryPoints: {
    pressroom: "src/cli/main.ts",
    index: "src/index.ts",
    "render-worker": "src/render/engine/render-worker.ts",
    "convert-worker": "src/render/engine/convert-worker.ts",
    "native-worker": "src/render/engine/native-worker.ts"
  },
  // Packages included, but for EXTERNAL.
  bundle: true,
  external: EXTERNAL,
  // Each dynamic import gets a chunk of its own, loaded when it is imported; code both entries use
  // goes into shared chunks rather than twice into dist/.
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  // Splitting needs ES modules; package.json's "type": "module" makes dist/*.js ones.
  format: "esm",
  platform: "node",
  // package.json's "engines": no syntax is lowered that Node 20 runs as it is.
  target: "node20",
  banner: NODE_REQUIRE_BANNER,
  absWorkingDir: root,
  // Fixes carried for bundled packages (scripts/source-patches.ts).
  plugins: [sourcePatches],
  outdir: dist,
  // Written below, so that a process starting meanwhile (a server's replacement worker) reads
  // each file whole, and no entry before the chunks it imports.
  write: false,
  logLevel: "warning"
} as const satisfies BuildOptions

/** Writes a file under its name only once complete: a process reads all of it or none. */
const writeWhole = (path: string, contents: Uint8Array) => {
  mkdirSync(dirname(path), { recursive: true })
  const partial = `${path}.${process.pid}.tmp`
  writeFileSync(partial, contents)
  renameSync(partial, path)
}

/** Every file under `folder`. */
const filesUnder = (folder: string): Array<string> =>
  readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))

/** The product's entries, and `extra` ones (bench/render.ts becomes dist/bench/render.js). */
const entriesWith = (extra: ReadonlyArray<string>) => ({
  ...buildOptions.entryPoints,
  ...Object.fromEntries(extra.map((entry) => [entry.replace(/\.ts$/, ""), entry]))
})

/**
 * The client alone: one file with its packages, no chunk in common with the renderer's build, and
 * for any platform with fetch (Node 20, Deno, browsers): no banner giving it Node's require, which
 * it does not use. Its imports must stay free of the renderer's modules (.dependency-cruiser.cjs,
 * test/client/import.test.ts); bundling alone would not show it if they were not.
 */
const clientBuild = () =>
  build({
    ...buildOptions,
    entryPoints: { client: "src/client/index.ts" },
    splitting: false,
    platform: "browser",
    target: "es2022",
    banner: {}
  })

/**
 * The faces the manifest lists as decoded from WOFF (src/render/fonts/woff.ts), written into dist/
 * where the renderer finds them; the renderer checks their hash at start like any other font's.
 */
const writeDecodedFonts = (): Array<string> =>
  readManifest()
    .fonts.filter((entry) => entry.decoded !== undefined)
    .map((entry) => {
      const path = fontFilePath(entry)
      writeWhole(path, decodeWoff(readFileSync(installedFontPath(entry))))
      return path
    })

/** Folders of dist/ that other steps write: the declarations (npm run build:types). */
const keptFolders = [join(dist, "types")]

const buildDist = async (extra: ReadonlyArray<string>) => {
  const [main, client] = await Promise.all([build({ ...buildOptions, entryPoints: entriesWith(extra) }), clientBuild()])
  const outputFiles = [...main.outputFiles, ...client.outputFiles]
  // The entries last, once the chunks they import are there.
  const isEntry = (path: string) => !relative(dist, path).startsWith("chunks")
  const entriesLast = [...outputFiles.filter((file) => !isEntry(file.path)), ...outputFiles.filter((file) => isEntry(file.path))]
  for (const { path, contents } of entriesLast) writeWhole(path, contents)
  // Chunks of earlier builds are named by their content and would pile up. A running process
  // loaded its commands at start (src/cli/main.ts) and needs none of them again; a running
  // server's replacement workers start from the new dist/render-worker.js. A .tmp file may be
  // another build's, about to be renamed.
  const outputs = new Set([...outputFiles.map(({ path }) => path), ...writeDecodedFonts()])
  const kept = (file: string) => outputs.has(file) || file.endsWith(".tmp") || keptFolders.some((folder) => file.startsWith(`${folder}/`))
  for (const file of filesUnder(dist)) if (!kept(file)) rmSync(file)
  process.stdout.write(`built ${outputs.size} files in ${relative(root, dist)}/\n`)
}

// Run as a script; test/cli/build.test.ts imports the options.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await buildDist(process.argv.slice(2))
