/**
 * Runs a TypeScript entry of this checkout under Node as JavaScript modules: esbuild bundles the
 * entry and everything it imports into dist/, packages included but for those in EXTERNAL. A
 * TypeScript loader would cost more than the bundling: tsx runs a loader thread and keeps every
 * module it transformed, about 80 MiB of a process that renders (README, "Memory"). Bundling the
 * packages too spares Node resolving and loading Effect's thousands of module files one by one:
 * `pressroom accounts create` takes 0.8 s instead of 1.2 s, and a server 40 MiB less.
 *
 * What the entry imports dynamically goes into chunks of its own (dist/chunks/), loaded when it is
 * imported, with the packages it imports: the pressroom command loads only the command it runs.
 * A build records the size and modification time of every file it was made from (this script
 * included); a start whose files all match reuses the bundle, and any other builds it again (about
 * a second), so an edit, a checkout or an npm install is picked up by the next start. Every output
 * is named by its content, so processes starting together write the same bytes to the same names.
 * The build is synchronous: esbuild's asynchronous API keeps a service process alive beside a
 * server for good. dist/ must be writable.
 *
 *   node bin/bundle.js <entry.ts> [arguments]   bundles the entry and runs it with the arguments
 *   node bin/bundle.js --build <entry.ts> ...    only bundles, printing the entries' files (CI: fails early)
 */
import { buildSync } from "esbuild"
import { createHash } from "node:crypto"
import { mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(root, "dist")
/**
 * A file of dist/ not used for this long is removed when a new one is written. Starting from a
 * bundle touches its files, and a process imports its chunks as it starts (the command it runs),
 * except the benchmark, whose phases start from its bundle again, all within a run.
 */
const UNUSED_MS = 24 * 60 * 60 * 1000
/** A partial file older than this belongs to no process still writing it. */
const TMP_MS = 60 * 60 * 1000
/** A build from a file modified less than this before it started is not reused. */
const RECENT_MS = 2_000

/**
 * Packages left to node_modules: those that load files installed beside them (PGlite's and
 * Typst's WebAssembly, esbuild's binary) and pg with its family, whose optional native binding a
 * bundle cannot resolve (pg-cursor requires pg's own files, so it stays beside them). None of them
 * imports a package that the bundle holds, so no package runs as two copies.
 */
const EXTERNAL = ["@electric-sql/pglite", "@electric-sql/pglite/*", "@myriaddreamin/*", "esbuild", "pg", "pg/*", "pg-*"]

/** Where the build of `input` (an entry relative to the checkout) is recorded. */
const recordPath = (input) => join(dist, "builds", `${createHash("sha256").update(input).digest("hex").slice(0, 16)}.json`)

/** `[file, size, mtimeMs]`: what a file relative to the checkout is now. */
const stamp = (file) => {
  const { size, mtimeMs } = statSync(resolve(root, file))
  return [file, size, mtimeMs]
}

/** The recorded build's entry file, its outputs touched, if it was made from the files as they are now. */
const recordedBuild = (input) => {
  try {
    const { inputs, outputs, entry } = JSON.parse(readFileSync(recordPath(input), "utf8"))
    const current = inputs.every(([file, size, mtimeMs]) => {
      const [, nowSize, nowMtimeMs] = stamp(file)
      return nowSize === size && nowMtimeMs === mtimeMs
    })
    if (!current) return undefined
    const now = new Date()
    for (const output of outputs) utimesSync(resolve(root, output), now, now) // also fails if one was removed
    return entry
  } catch {
    return undefined // none yet, or one this version of the script did not write
  }
}

/** The file URL of an up-to-date bundle of `entry` (a path relative to the checkout, or absolute). */
export const bundle = (entry) => {
  const source = resolve(root, entry)
  // Chunks of dynamic imports name their own module as entryPoint too: match the entry's.
  const input = relative(root, source).split(sep).join("/")
  const recorded = recordedBuild(input)
  if (recorded) return pathToFileURL(resolve(root, recorded)).href
  const started = Date.now()
  const result = buildSync({
    entryPoints: [source],
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
  const output = Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint === input)
  if (!output) throw new Error(`esbuild produced no bundle for ${input}`)
  const inputs = [relative(root, fileURLToPath(import.meta.url)), ...Object.keys(result.metafile.inputs)].map(stamp)
  // A file saved while esbuild read it may hold other bytes than the bundle under the time seen
  // now, and file times are coarse: a build from files that recent is not recorded.
  if (inputs.every(([, , mtimeMs]) => mtimeMs < started - RECENT_MS)) {
    writeAtomically(recordPath(input), JSON.stringify({ inputs, outputs: Object.keys(result.metafile.outputs), entry: output[0] }))
  }
  return pathToFileURL(resolve(root, output[0])).href
}

/** Writes a file under its name only once complete: another process reads all of it or none. */
const writeAtomically = (path, contents) => {
  mkdirSync(dirname(path), { recursive: true })
  const partial = `${path}.${process.pid}.tmp`
  writeFileSync(partial, contents)
  renameSync(partial, path)
}

const removeUnused = (folder) => {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) removeUnused(path)
    else if (entry.name.endsWith(".mjs") || entry.name.endsWith(".tmp")) {
      // A .tmp file is what a process that died between writing and renaming left behind.
      try {
        if (Date.now() - statSync(path).mtimeMs > (entry.name.endsWith(".tmp") ? TMP_MS : UNUSED_MS)) unlinkSync(path)
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
