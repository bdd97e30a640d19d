/**
 * Runs a TypeScript entry of this checkout under Node as one JavaScript module: esbuild bundles the
 * entry and everything it imports from the checkout into dist/, leaving packages to node_modules.
 * A TypeScript loader would cost more than the bundling: tsx runs a loader thread and keeps every
 * module it transformed, about 80 MiB of a process that renders (README, "Memory").
 *
 * The bundle is made at every start (tens of milliseconds) and named by its content, so it is never
 * stale, and processes starting together write the same bytes to the same name.
 *
 *   node bin/bundle.js <entry.ts> [arguments]   bundles the entry and runs it with the arguments
 *   node bin/bundle.js --check <entry.ts> ...    only bundles (CI: a build error fails early)
 */
import { build } from "esbuild"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import { basename, dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(root, "dist")
/** Bundles of earlier sources older than this are removed (a process started from one has loaded it). */
const STALE_MS = 60 * 60 * 1000

/** The file URL of an up-to-date bundle of `entry` (a path relative to the checkout). */
export const bundle = async (entry) => {
  const result = await build({
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
  const name = basename(entry).replace(/\.ts$/, "")
  const file = join(dist, `${name}-${createHash("sha256").update(code).digest("hex").slice(0, 16)}.mjs`)
  if (!existsSync(file)) {
    mkdirSync(dist, { recursive: true })
    const partial = `${file}.${process.pid}.tmp`
    writeFileSync(partial, code)
    renameSync(partial, file)
    for (const other of readdirSync(dist)) {
      const path = join(dist, other)
      if (path === file || !other.startsWith(`${name}-`)) continue
      try {
        if (Date.now() - statSync(path).mtimeMs > STALE_MS) unlinkSync(path)
      } catch {
        // Another process removed it first.
      }
    }
  }
  return pathToFileURL(file).href
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [first, ...rest] = process.argv.slice(2)
  if (first === "--check") {
    for (const entry of rest) process.stdout.write(`${fileURLToPath(await bundle(entry))}\n`)
  } else if (first) {
    // The entry sees its own arguments, as if it had been started directly.
    const url = await bundle(first)
    process.argv.splice(1, 2, fileURLToPath(url))
    await import(url)
  } else {
    process.stderr.write("usage: node bin/bundle.js [--check] <entry.ts> [arguments]\n")
    process.exitCode = 2
  }
}
