/**
 * npm run corpus:record — renders the renderer corpus (test/fixtures/renderer-corpus.ts) and
 * records its hashes, with this rendererVersion, in test/fixtures/renderer-corpus.json. Run it
 * after bumping package.json's version when a change alters PDF bytes (contract section 11), or
 * after changing the corpus's documents; test/render/renderer-corpus.test.ts checks the record.
 */
import { Renderer } from "../src/render/renderer.ts"
import { CORPUS_RECORD, readRecordedCorpus, renderCorpus, writeRecordedCorpus } from "../test/fixtures/renderer-corpus.ts"

const renderer = await Renderer.create({ workers: 2, timeoutMs: 120_000 })
try {
  const before = (() => {
    try {
      return readRecordedCorpus()
    } catch {
      return undefined
    }
  })()
  const corpus = await renderCorpus(renderer)
  writeRecordedCorpus(corpus)
  const previous = new Map(before?.entries.map((entry) => [entry.name, entry.pdfSha256]))
  const changed = corpus.entries.filter((entry) => previous.get(entry.name) !== entry.pdfSha256).length
  console.log(`${CORPUS_RECORD}: ${corpus.entries.length} documents for ${corpus.rendererVersion}, ${changed} with new bytes`)
} finally {
  await renderer.close()
}
