/**
 * Runs a TypeScript entry of this checkout under Node as JavaScript modules: esbuild bundles the
 * entry and everything it imports into dist/, packages included but for those in EXTERNAL. A
 * TypeScript loader would cost more than the bundling: tsx runs a loader thread and keeps every
 * module it transformed, about 80 MiB of a process that renders (README, "Memory"). Bundling the
 * packages too spares Node resolving and loading Effect's thousands of module files one by one:
 * `pressroom accounts create` takes 0.9 s instead of 1.4 s, and a server 40 MiB less.
 *
 * What the entry imports dynamically goes into chunks of its own (dist/chunks/), loaded when it is
 * imported, with the packages it imports: the pressroom command loads only the command it runs.
 * A build records what it was made from (build-record.js: every file esbuild read, the folders
 * above them and their package.json and tsconfig.json, this script, esbuild's version); a start
 * that finds all of it unchanged reuses the bundle, and any other builds it again (about a
 * second). Every output is named by its content, so processes starting together write the same
 * bytes to the same names.
 * The build is synchronous: esbuild's asynchronous API keeps a service process alive beside a
 * server for good. dist/ must be writable.
 *
 *   node bin/bundle.js <entry.ts> [arguments]   bundles the entry and runs it with the arguments
 *   node bin/bundle.js --build <entry.ts> ...    only bundles, printing the entries' files (CI: fails early)
 */
import { createHash } from "node:crypto"
import { readdirSync, realpathSync, statSync, unlinkSync, utimesSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative, resolve, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { currentBuild, fileSystemTime, writeAtomically, writeBuildRecord } from "./build-record.js"

const require = createRequire(import.meta.url)

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(root, "dist")
/**
 * A file of dist/ (output or record) not used for this long is removed when a new one is written.
 * Reusing or writing a build touches all its files, whichever of them the process goes on to import.
 */
const UNUSED_MS = 24 * 60 * 60 * 1000
/** A partial file older than this belongs to no process still writing it. */
const TMP_MS = 60 * 60 * 1000

/**
 * Packages left to node_modules: those that find files installed beside them through
 * import.meta.url or __dirname (PGlite's, Typst's and mupdf's WebAssembly, esbuild's binary,
 * autocannon's workers and help, msgpackr's optional native decoder) and pg with its family,
 * whose optional native binding a bundle cannot resolve (pg-cursor requires pg's own files).
 * test/cli/bundle.test.ts fails when a bundled package would look for its files. None of these
 * imports a package that the bundle holds, so no package runs as two copies.
 */
export const EXTERNAL = [
  "@electric-sql/pglite", "@electric-sql/pglite/*", "@myriaddreamin/*", "mupdf", "autocannon", "msgpackr", "msgpackr-extract", "esbuild",
  "pg", "pg/*", "pg-*"
]

/** This script, build-record.js and esbuild's package.json (its version): they decide what a build makes. */
const BUILDER_FILES = [fileURLToPath(import.meta.url), fileURLToPath(new URL("./build-record.js", import.meta.url)), require.resolve("esbuild/package.json")]
  .map((path) => relative(root, path))

/**
 * esbuild's options for `entry` (absolute).
 * @param {string} entry
 * @returns {import("esbuild").BuildOptions & { metafile: true, write: false }}
 */
export const buildOptions = (entry) => ({
  entryPoints: [entry],
  bundle: true,
  splitting: true,
  external: EXTERNAL,
  // CommonJS packages in the bundle require Node's built-ins: give every module a require.
  banner: { js: `import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);` },
  format: "esm",
  platform: "node",
  target: "es2022",
  absWorkingDir: root,
  outdir: dist,
  entryNames: "[name]-[hash]",
  chunkNames: "chunks/[name]-[hash]",
  outExtension: { ".js": ".mjs" },
  metafile: true,
  write: false,
  logLevel: "silent"
})

/** Where the build of `input` (an entry relative to the checkout) is recorded. */
const recordPath = (input) => join(dist, "builds", `${createHash("sha256").update(input).digest("hex").slice(0, 16)}.json`)

/**
 * An up-to-date bundle of `entry` (a path relative to the checkout, or absolute): its file URL,
 * and whether this call built it (false when a recorded build was current).
 */
export const prepare = (entry) => {
  const source = resolve(root, entry)
  const input = relative(root, source).split(sep).join("/")
  const record = recordPath(input)
  const current = currentBuild(record, root)
  if (current) return { url: pathToFileURL(resolve(root, current)).href, built: false }
  const startedAt = fileSystemTime(dirname(record))
  // Loaded only to build: a start that reuses a build does not pay for it.
  const { buildSync } = require("esbuild")
  const result = buildSync(buildOptions(source))
  const now = new Date()
  let wrote = false
  for (const { path, contents } of result.outputFiles) {
    try {
      utimesSync(path, now, now)
    } catch {
      writeAtomically(path, contents)
      wrote = true
    }
  }
  if (wrote) removeUnused(dist)
  // Chunks of dynamic imports name their own module as entryPoint too: match the entry's.
  const output = Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint === input)
  if (!output) throw new Error(`esbuild produced no bundle for ${input}`)
  // Without a time from dist/builds (not writable) the build is not recorded: the next start builds again.
  if (startedAt !== undefined) {
    const inputs = [...BUILDER_FILES, ...Object.keys(result.metafile.inputs)]
    writeBuildRecord(record, root, { inputs, outputs: Object.keys(result.metafile.outputs), entryOutput: output[0], startedAt })
  }
  return { url: pathToFileURL(resolve(root, output[0])).href, built: true }
}

/** The file URL of an up-to-date bundle of `entry` (a path relative to the checkout, or absolute). */
export const bundle = (entry) => prepare(entry).url

const removeUnused = (folder) => {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) removeUnused(path)
    else if (/\.(mjs|json|tmp)$|^\.clock\./.test(entry.name)) {
      // A .tmp or .clock file is what a process that died while writing it left behind.
      const partial = entry.name.endsWith(".tmp") || entry.name.startsWith(".clock.")
      try {
        if (Date.now() - statSync(path).mtimeMs > (partial ? TMP_MS : UNUSED_MS)) unlinkSync(path)
      } catch {
        // Another process removed it first.
      }
    }
  }
}

// Run as a program (also through a symbolic link), not imported by bin/pressroom.js.
const isMain = () => {
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false // no script path (node -e, a REPL) or one that no longer exists
  }
}
if (process.argv[1] && isMain()) {
  const [first, ...rest] = process.argv.slice(2)
  if (first === "--build") {
    for (const entry of rest) process.stdout.write(`${fileURLToPath(bundle(entry))}\n`)
  } else if (first) {
    // The entry sees its own arguments, as if it had been started directly.
    const url = bundle(first)
    process.argv.splice(1, 2, fileURLToPath(url))
    await import(url)
  } else {
    process.stderr.write("usage: node bin/bundle.js [--build] <entry.ts> [arguments]\n")
    process.exitCode = 2
  }
}
