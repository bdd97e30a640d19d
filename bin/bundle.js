/**
 * Runs a TypeScript entry of this checkout under Node as one JavaScript module: esbuild bundles the
 * entry and everything it imports from the checkout into dist/, leaving packages to node_modules.
 * A TypeScript loader would cost more than the bundling: tsx runs a loader thread and keeps every
 * module it transformed, about 80 MiB of a process that renders (README, "Memory").
 *
 * The bundle is made at every start (a few hundred milliseconds) and named by its content, so it is
 * never stale, and processes starting together write the same bytes to the same name. The build is
 * synchronous: esbuild's asynchronous API keeps a service process alive beside a server for good.
 * dist/ must be writable.
 *
 *   node bin/bundle.js <entry.ts> [arguments]   bundles the entry and runs it with the arguments
 *   node bin/bundle.js --build <entry.ts> ...    only bundles, printing the files (CI: fails early)
 */
import { buildSync } from "esbuild"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, realpathSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs"
import { basename, dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(root, "dist")
/**
 * A bundle not used for this long is removed when another bundle of the same entry is made. Using
 * one touches it; a process that started from one has loaded it, except the benchmark, whose
 * phases start from its bundle again, all within a run.
 */
const UNUSED_MS = 24 * 60 * 60 * 1000

/** The file URL of an up-to-date bundle of `entry` (a path relative to the checkout, or absolute). */
export const bundle = (entry) => {
  const result = buildSync({
    entryPoints: [resolve(root, entry)],
    bundle: true,
    packages: "external",
    format: "esm",
    platform: "node",
    target: "es2022",
    write: false,
    logLevel: "silent"
  })
  const code = result.outputFiles[0].contents
  const name = basename(entry).replace(/\.[cm]?ts$/, "")
  const file = join(dist, `${name}-${createHash("sha256").update(code).digest("hex").slice(0, 16)}.mjs`)
  if (existsSync(file)) {
    const now = new Date()
    utimesSync(file, now, now)
  } else {
    mkdirSync(dist, { recursive: true })
    const partial = `${file}.${process.pid}.tmp`
    writeFileSync(partial, code)
    renameSync(partial, file)
    removeUnused(name, file)
  }
  return pathToFileURL(file).href
}

const removeUnused = (name, kept) => {
  for (const other of readdirSync(dist)) {
    const path = join(dist, other)
    // Only this entry's bundles: the name, a dash, sixteen hex digits (not "gallery-image-…" for "gallery").
    if (path === kept || !other.startsWith(`${name}-`) || !/^[0-9a-f]{16}\.mjs$/.test(other.slice(name.length + 1))) continue
    try {
      if (Date.now() - statSync(path).mtimeMs > UNUSED_MS) unlinkSync(path)
    } catch {
      // Another process removed it first.
    }
  }
}

// Run as a program (also through a symbolic link), not imported by bin/pressroom.js.
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
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
