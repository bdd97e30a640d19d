/**
 * The same input gives the same bytes: across fresh renderer pools, within one pool, and between
 * Node and Deno. Different options give different bytes. (Across releases: renderer-corpus.test.ts.)
 */
import t from "tap"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { Renderer, type RenderRequest } from "../../src/render/renderer.ts"
import { sha256, testEngine } from "../helpers/render.ts"
import { MIXED_DOCUMENT } from "../fixtures/renderer-corpus.ts"

const run = promisify(execFile)
const root = fileURLToPath(new URL("../../", import.meta.url))

const REQUEST: RenderRequest = MIXED_DOCUMENT

t.test("two fresh pools give byte-identical PDFs and provenance", async (t) => {
  const first = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 30_000 })
  const a = await first.render(REQUEST)
  const again = await first.render(REQUEST)
  await first.close()
  const second = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 30_000 })
  t.teardown(() => second.close())
  const b = await second.render(REQUEST)
  t.equal(sha256(a.pdf), a.sha256, "sha256 is the hash of the PDF bytes")
  t.ok(Buffer.from(a.pdf).equals(Buffer.from(b.pdf)), "byte-identical across pools")
  t.equal(a.sha256, b.sha256)
  t.same(a.provenance, b.provenance, "identical provenance across pools")
  t.same(a.warnings, b.warnings)
  t.ok(Buffer.from(a.pdf).equals(Buffer.from(again.pdf)), "byte-identical on a second render in the same pool")
  t.same(a.provenance, again.provenance)
  // The PDF carries no creation or modification date (they would change the bytes).
  const head = Buffer.from(a.pdf).toString("latin1")
  t.notMatch(head, /\/CreationDate|\/ModDate/, "no dates in the PDF")

  const cold = await Renderer.create({ engine: testEngine, workers: 1, timeoutMs: 30_000, warmUp: false })
  t.teardown(() => cold.close())
  t.equal((await cold.render(REQUEST)).sha256, a.sha256, "a pool without the warm-up page gives the same bytes")

  const concurrent = await Promise.all([1, 2, 3, 4].map(() => second.render(REQUEST)))
  t.same(
    concurrent.map((r) => r.sha256),
    [a.sha256, a.sha256, a.sha256, a.sha256],
    "concurrent renders agree"
  )

  const other = await second.render({ ...REQUEST, options: { pageNumbers: false } })
  t.not(other.sha256, a.sha256, "pageNumbers false gives a different PDF")
  t.not(other.provenance.renderOptionsSha256, a.provenance.renderOptionsSha256)
  const coloured = await second.render({ ...REQUEST, options: { pageNumbers: true, bodyTextColor: "#aa33cc" } })
  t.not(coloured.sha256, a.sha256, "a body colour gives a different PDF")
  const channel = await second.render({ ...REQUEST, channel: "cli" })
  t.equal(channel.sha256, a.sha256, "the channel changes provenance, not the PDF")
  t.equal(channel.provenance.channel, "cli")
  t.equal(channel.provenance.manifestSha256, a.provenance.manifestSha256, "the channel is not in the manifest")
  // Same effective options spelled differently hash the same render options.
  const upper = await second.render({ ...REQUEST, options: { pageNumbers: true, bodyTextColor: "#aa33cc".toUpperCase() } })
  t.equal(upper.sha256, coloured.sha256, "colour case does not change the PDF")
  t.equal(upper.provenance.renderOptionsSha256, coloured.provenance.renderOptionsSha256, "colour case does not change renderOptionsSha256")
  t.not(upper.provenance.optionsSha256, coloured.provenance.optionsSha256, "optionsSha256 covers the options as sent")
  t.equal(
    upper.provenance.manifestSha256,
    coloured.provenance.manifestSha256,
    "equal bytes from options spelled differently: equal manifests"
  )
  t.not(coloured.provenance.manifestSha256, a.provenance.manifestSha256, "different bytes: different manifests")

  t.test("Deno renders the same bytes as Node", async (t) => {
    // Deno is a devDependency (npm package `deno`, whose binary ships inside it): it must run.
    const deno = `${root}node_modules/deno/deno`
    const { stdout, stderr } = await run(
      deno,
      ["run", "-A", "--node-modules-dir=manual", "test/fixtures/render-once.ts", JSON.stringify(REQUEST)],
      {
        cwd: root,
        timeout: 120_000,
        env: { ...process.env, NO_COLOR: "1" }
      }
    ).catch((error: { stdout?: string; stderr?: string }) => ({
      stdout: error.stdout ?? "",
      stderr: `${String(error)}\n${error.stderr ?? ""}`
    }))
    const line = stdout.trim().split("\n").pop() ?? ""
    let parsed: { sha256: string; provenance: unknown } | undefined
    try {
      parsed = JSON.parse(line)
    } catch {
      t.fail("the Deno script prints its result", { stdout, stderr })
      return
    }
    t.equal(parsed!.sha256, a.sha256, "Deno sha256 equals Node sha256")
    t.same(parsed!.provenance, a.provenance, "Deno provenance equals Node provenance")
  })
})
