/**
 * bin/bundle.js, which every Node start goes through: a start reuses a bundle only while nothing
 * it was made from has changed (a source's bytes, a new file that would be resolved first, a
 * package's package.json), never records one made from a file saved just before it, and no
 * package the bundle holds looks for files beside itself.
 */
import t from "tap"
import { buildSync } from "esbuild"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { buildOptions, EXTERNAL, prepare } from "../../bin/bundle.js"
import { repositoryRoot } from "../../src/render/fonts/manifest.ts"

t.test("a bundle is reused only while nothing it was made from has changed", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "pressroom-bundle-"))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const entry = join(dir, "entry.ts")
  /**
   * Writes a file with its modification time set to an hour ago, as rsync -t or cp -p keep a
   * source's: what tells the edit apart is then the change time, the inode or the folder's times.
   */
  const hourAgo = Math.floor(Date.now() / 1000) - 3600
  const save = (name: string, text: string) => {
    const path = join(dir, name)
    mkdirSync(join(path, ".."), { recursive: true })
    writeFileSync(path, text)
    utimesSync(path, hourAgo, hourAgo)
  }
  const start = async () => {
    const { url, built } = prepare(entry)
    return { seen: ((await import(url)) as { seen: string }).seen, built }
  }
  /** After an edit: the next start builds what the edit makes, and the one after reuses that build. */
  const followsEdit = async (seen: string, edit: string) => {
    await sleep(2_100) // so that the build after the edit may be recorded
    t.same(await start(), { seen, built: true }, edit)
    t.same(await start(), { seen, built: false }, `${edit}: then reused`)
  }

  save("entry.ts", `import { value } from "./value.ts"\nimport { part } from "./part.js"\nimport { name } from "fake"\nexport const seen: string = [value, part, name].join(" ")\n`)
  save("value.ts", `export const value = "first"\n`)
  save("part.ts", `export const part = "ts"\n`)
  save("node_modules/fake/package.json", `{ "name": "fake", "type": "module", "exports": "./a.js" }`)
  save("node_modules/fake/a.js", `export const name = "a"\n`)
  save("node_modules/fake/b.js", `export const name = "b"\n`)
  t.same(await start(), { seen: "first ts a", built: true })
  t.same(await start(), { seen: "first ts a", built: true }, "files changed just before a build: not recorded, built again")
  await followsEdit("first ts a", "no change for two seconds: recorded")

  save("value.ts", `export const value = "other"\n`)
  await followsEdit("other ts a", "an edit that keeps the size and modification time")
  save("part.js", `export const part = "js"\n`)
  await followsEdit("other js a", "a new file that is now resolved first")
  save("node_modules/fake/package.json", `{ "name": "fake", "type": "module", "exports": "./b.js" }`)
  await followsEdit("other js b", "a package's package.json, which esbuild reads but does not list")
})

t.test("no package the bundles hold looks for files beside itself", async (t) => {
  const scripts = (JSON.parse(readFileSync(join(repositoryRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts
  const entries = new Set(["src/cli/main.ts", ...Object.values(scripts).flatMap((script) => [...script.matchAll(/bin\/bundle\.js (?:--build )?(\S+\.ts)/g)].map((m) => m[1]!))])
  t.ok(entries.size > 5, `the entries: ${[...entries].join(", ")}`)
  // How a module finds its own files, which a bundle moves to dist/.
  const locating = /import\.meta\.url|__dirname|__filename|require\.resolve/
  /** Files read and found harmless. */
  const reviewed = new Set(["node_modules/undici/index.js"]) // __filename behind a typeof guard, for stack traces
  for (const entry of entries) {
    const { metafile } = buildSync(buildOptions(join(repositoryRoot, entry)))
    const offenders = Object.keys(metafile.inputs)
      .filter((input) => input.includes("node_modules/") && !reviewed.has(input))
      .filter((input) => locating.test(readFileSync(join(repositoryRoot, input), "utf8")))
    t.same(offenders, [], `${entry}: no bundled package file locates itself (else add its package to EXTERNAL: ${EXTERNAL.join(", ")})`)
  }
})
