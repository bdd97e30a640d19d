/**
 * Runs a TypeScript entry of this checkout under Node as JavaScript modules: esbuild bundles the
 * entry and everything it imports from the checkout into dist/, leaving packages to node_modules.
 * A TypeScript loader would cost more than the bundling: tsx runs a loader thread and keeps every
 * module it transformed, about 80 MiB of a process that renders (README, "Memory").
 *
 * What the entry imports dynamically goes into chunks of its own (dist/chunks/), loaded when it is
 * imported, with the packages it imports: the pressroom command loads only the command it runs.
 * The bundle is made at every start (a few hundred milliseconds) and every file is named by its
 * content, so it is never stale, and processes starting together write the same bytes to the same
 * names. The build is synchronous: esbuild's asynchronous API keeps a service process alive beside
 * a server for good. dist/ must be writable.
 *
 *   node bin/bundle.js <entry.ts> [arguments]   bundles the entry and runs it with the arguments
 *   node bin/bundle.js --build <entry.ts> ...    only bundles, printing the entries' files (CI: fails early)
 */
import { buildSync } from "esbuild"
import { mkdirSync, readdirSync, realpathSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs"
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

/** The file URL of an up-to-date bundle of `entry` (a path relative to the checkout, or absolute). */
export const bundle = (entry) => {
  const source = resolve(root, entry)
  const result = buildSync({
    entryPoints: [source],
    bundle: true,
    splitting: true,
    packages: "external",
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
      mkdirSync(dirname(path), { recursive: true })
      const partial = `${path}.${process.pid}.tmp`
      writeFileSync(partial, contents)
      renameSync(partial, path)
      wrote = true
    }
  }
  if (wrote) removeUnused(dist)
  // Chunks of dynamic imports name their own module as entryPoint too: match the entry's.
  const input = relative(root, source).split(sep).join("/")
  const output = Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint === input)
  if (!output) throw new Error(`esbuild produced no bundle for ${input}`)
  return pathToFileURL(resolve(root, output[0])).href
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
