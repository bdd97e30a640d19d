/**
 * bin/bundle.js, which every Node start goes through, and bin/build-record.js: a start reuses a
 * bundle only while nothing it was made from has changed (a file's bytes even at the same size
 * and modification time, a new file that would be resolved first, a package.json folders above a
 * file), never records a build made from a file changed just before it, and no package the
 * bundles hold looks for files beside itself.
 */
import t from "tap"
import { buildSync } from "esbuild"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { currentBuild, writeBuildRecord } from "../../bin/build-record.js"
import { buildOptions, EXTERNAL, prepare } from "../../bin/bundle.js"
import { repositoryRoot } from "../../src/render/fonts/manifest.ts"
import type { TestContext } from "../helpers/tap.ts"

/** A fresh folder, removed after the test. */
const folder = (t: TestContext): string => {
  const dir = mkdtempSync(join(tmpdir(), "pressroom-bundle-"))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Writes a file with its modification time set to an hour ago, as rsync -t or cp -p keep a
 * source's: what tells an edit apart is then the change time, the inode or the folder's times.
 */
const hourAgo = Math.floor(Date.now() / 1000) - 3600
const save = (dir: string, name: string, text: string) => {
  const path = join(dir, name)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
  utimesSync(path, hourAgo, hourAgo)
}

t.test("a record holds while nothing a build depends on changes", async (t) => {
  // A checkout of its own: a package's file two folders below its package.json.
  const root = folder(t)
  const record = join(root, "dist", "builds", "entry.json")
  const files = {
    "src/entry.ts": `import { name } from "fake"`,
    "node_modules/fake/package.json": `{ "exports": "./dist/esm/a.js" }`,
    "node_modules/fake/dist/esm/a.js": `export const name = "a"`
  }
  for (const [name, text] of Object.entries(files)) save(root, name, text)
  save(root, "dist/entry.mjs", "")
  const build = { inputs: ["src/entry.ts", "node_modules/fake/dist/esm/a.js"], outputs: ["dist/entry.mjs"], entryOutput: "dist/entry.mjs" }
  const recordNow = () => writeBuildRecord(record, root, { ...build, startedAt: Date.now() + 60_000 })

  t.notOk(writeBuildRecord(record, root, { ...build, startedAt: Date.now() }), "files changed just before the build: not recorded")
  t.equal(currentBuild(record, root), undefined, "so there is no current build")
  t.ok(recordNow(), "files changed well before the build: recorded")
  t.equal(currentBuild(record, root), "dist/entry.mjs", "nothing changed: current")

  const changes: ReadonlyArray<readonly [string, () => void]> = [
    ["a source rewritten with the same size and modification time", () => save(root, "src/entry.ts", files["src/entry.ts"].replace("fake", "fak2"))],
    ["a package.json two folders above a file it governs", () => save(root, "node_modules/fake/package.json", files["node_modules/fake/package.json"].replace("a.js", "b.js"))],
    ["a new file beside a source, which may now be resolved first", () => save(root, "src/entry.js", "")],
    ["a new package.json between a file and its package's", () => save(root, "node_modules/fake/dist/package.json", `{ "type": "commonjs" }`)],
    ["a tsconfig.json added at the top of the checkout", () => save(root, "tsconfig.json", "{}")],
    ["a source removed (and written again)", () => rmSync(join(root, "node_modules/fake/dist/esm/a.js"))],
    ["an output removed (and written again)", () => rmSync(join(root, "dist/entry.mjs"))]
  ]
  for (const [change, make] of changes) {
    make()
    t.equal(currentBuild(record, root), undefined, `${change}: not current`)
    save(root, "node_modules/fake/dist/esm/a.js", files["node_modules/fake/dist/esm/a.js"])
    save(root, "dist/entry.mjs", "")
    t.ok(recordNow(), `${change}: recorded again`)
    t.equal(currentBuild(record, root), "dist/entry.mjs", `${change}: current once recorded again`)
  }
})

t.test("a start reuses a bundle until its sources change", async (t) => {
  const dir = folder(t)
  const entry = join(dir, "entry.ts")
  const start = async () => {
    const { url, built } = prepare(entry)
    return { seen: ((await import(url)) as { seen: string }).seen, built }
  }
  save(dir, "entry.ts", `import { value } from "./value.ts"\nexport const seen: string = value\n`)
  save(dir, "value.ts", `export const value = "first"\n`)
  await sleep(2_100) // older than a build's "recent"
  t.same(await start(), { seen: "first", built: true })
  t.same(await start(), { seen: "first", built: false }, "nothing changed: the recorded build is reused")
  save(dir, "value.ts", `export const value = "other"\n`)
  t.same(await start(), { seen: "other", built: true }, "an edit that keeps the size and modification time: built again")
})

t.test("no package the bundles hold looks for files beside itself", async (t) => {
  const scripts = (JSON.parse(readFileSync(join(repositoryRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts
  const entries = new Set(["src/cli/main.ts", ...Object.values(scripts).flatMap((script) => [...script.matchAll(/bin\/bundle\.js (?:--build )?(\S+\.ts)/g)].map((m) => m[1]!))])
  t.ok(entries.size > 5, `the entries: ${[...entries].join(", ")}`)
  // How a module finds its own files, which a bundle moves to dist/.
  const locating = /import\.meta\.(url|dirname|filename|resolve)|__dirname|__filename|require\.resolve/
  /** Files read and found harmless. */
  const reviewed = new Set(["node_modules/undici/index.js"]) // __filename behind a typeof guard, for stack traces
  for (const entry of entries) {
    const { metafile, warnings } = buildSync(buildOptions(join(repositoryRoot, entry)))
    const offenders = Object.keys(metafile.inputs)
      .filter((input) => input.includes("node_modules/") && !reviewed.has(input))
      .filter((input) => locating.test(readFileSync(join(repositoryRoot, input), "utf8")))
    t.same(offenders, [], `${entry}: no bundled package file locates itself (else add its package to EXTERNAL: ${EXTERNAL.join(", ")})`)
    // A require or import of a computed path would look in dist/ too.
    const computed = warnings.filter((warning) => warning.id === "unsupported-require-call" || warning.id === "unsupported-dynamic-import")
    t.same(computed.map((warning) => `${warning.location?.file}: ${warning.text}`), [], `${entry}: no require or import of a computed path`)
  }
})
