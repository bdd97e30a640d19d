/**
 * The rendererVersion guard (contract section 11): the corpus of test/fixtures/renderer-corpus.ts
 * renders to the PDF bytes and manifests recorded for this rendererVersion. A change that alters
 * them must come with a new rendererVersion, so that equal provenance keeps meaning equal bytes.
 */
import t from "tap"
import { Renderer, rendererVersion } from "../../src/render/renderer.ts"
import { type RecordedEntry, readRecordedCorpus, renderCorpus } from "../fixtures/renderer-corpus.ts"
import { testEngine } from "../helpers/render.ts"

const RECORD = "npm run corpus:record"

const recorded = readRecordedCorpus()
const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 60_000, warmUp: false })
t.teardown(() => renderer.close())
const current = await renderCorpus(renderer)

/** What identifies a document's input, without what it rendered to. */
const inputOf = ({ manifestSha256: _m, pdfSha256: _p, ...input }: RecordedEntry) => input

t.test("the recorded corpus is the corpus's documents", async (t) => {
  t.same(current.entries.map(inputOf), recorded.entries.map(inputOf), `the corpus's documents changed: re-record with ${RECORD}`)
})

t.test("the corpus renders to its recorded bytes while rendererVersion stays the same", async (t) => {
  if (recorded.rendererVersion !== rendererVersion) {
    t.fail(
      `the corpus was recorded for '${recorded.rendererVersion}', this is '${rendererVersion}': record it for this version with ${RECORD}`
    )
    return
  }
  const byName = new Map(recorded.entries.map((entry) => [entry.name, entry]))
  const bump = `but rendererVersion is still '${rendererVersion}': bump "version" in package.json (rendererVersion names the release) and re-record with ${RECORD}`
  for (const entry of current.entries) {
    const before = byName.get(entry.name)
    if (before === undefined || before.sourceSha256 !== entry.sourceSha256) continue // reported above
    t.equal(entry.pdfSha256, before.pdfSha256, `${entry.name}: the PDF bytes changed ${bump}`)
    t.equal(
      entry.manifestSha256,
      before.manifestSha256,
      `${entry.name}: the manifest (a template, the catalog, the fonts or Typst) changed ${bump}`
    )
  }
})
