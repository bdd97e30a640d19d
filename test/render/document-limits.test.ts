/**
 * The document limits (document-limits.ts), the pass before the parser that refuses the shapes
 * micromark is quadratic on and documents past the worker's heap: every CommonMark example passes
 * it untouched; each bound lets a document at it through and refuses one past it with a message
 * naming the bound; every pathological input either passes or is refused by it; a refused document
 * fails as `rendering_failed` with that message, through the renderer and as a v2 job accepted
 * first (never a 422 at submission: the contract accepts any Markdown of its size).
 */
import spec from "commonmark-spec"
import t from "tap"
import {
  checkDocumentLimits,
  DOCUMENT_LIMIT_PREFIX,
  DocumentLimitExceeded,
  MAX_CODE_SPAN_SCAN,
  MAX_CONTAINER_WORK,
  MAX_DOCUMENT_INLINE_MARKERS,
  MAX_INLINE_MARKERS,
  MAX_LAZY_LINES,
  MAX_LINES,
  MAX_TABLE_PIPES
} from "../../src/render/markdown/document-limits.ts"
import { parseMarkdown } from "../../src/render/markdown/parse.ts"
import { Renderer, RenderingFailed } from "../../src/render/renderer.ts"
import { pathologicalInputs } from "../fixtures/pathological.ts"
import { createAccount } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { isValidPdf } from "../helpers/pdf.ts"
import { startServer } from "../helpers/server.ts"
import { awaitJob, newDocument, preview } from "../helpers/v2.ts"

const refusal = (markdown: string): string | undefined => {
  try {
    checkDocumentLimits(markdown)
    return undefined
  } catch (error) {
    if (!(error instanceof DocumentLimitExceeded)) throw error
    return error.message
  }
}

t.test("every CommonMark example passes the limits", async (t) => {
  const refused = (spec.tests as ReadonlyArray<{ markdown: string; number: number }>).filter((example) => refusal(example.markdown))
  t.same(
    refused.map((example) => example.number),
    []
  )
})

/** Lines `a` to `b`, as a paragraph's text of `count` lines. */
const plainLines = (count: number) => Array.from({ length: count }, () => "b").join("\n")

const BOUNDS: ReadonlyArray<{ name: string; at: string; past: string; names: RegExp }> = [
  {
    name: "inline markers in one paragraph",
    at: `${"*".repeat(MAX_INLINE_MARKERS / 2)}deep${"*".repeat(MAX_INLINE_MARKERS / 2)}\n`,
    past: `${"*".repeat(MAX_INLINE_MARKERS / 2)}deep${"*".repeat(MAX_INLINE_MARKERS / 2 + 1)}\n`,
    names: /more than 10,000 emphasis, link, image, code, escape, entity or autolink markers in one paragraph/
  },
  {
    name: "inline markers in the whole document",
    at: `${"&".repeat(MAX_INLINE_MARKERS)}\n\n`.repeat(MAX_DOCUMENT_INLINE_MARKERS / MAX_INLINE_MARKERS),
    past: `${`${"&".repeat(MAX_INLINE_MARKERS)}\n\n`.repeat(MAX_DOCUMENT_INLINE_MARKERS / MAX_INLINE_MARKERS)}&\n`,
    names: /more than 50,000 emphasis, link, image, code, escape, entity or autolink markers$/
  },
  {
    name: "backtick runs without a closer",
    // Runs of 1 to 5 backticks, each without a closing run: each costs the rest of the paragraph.
    at: `${"`".repeat(1)}${"a".repeat(MAX_CODE_SPAN_SCAN / 5 - 10)}\n`,
    past: `${Array.from({ length: 5 }, (_, i) => "`".repeat(i + 1)).join("a")}${"a".repeat(MAX_CODE_SPAN_SCAN / 5)}\n`,
    names: /backticks without a closing run/
  },
  {
    name: "lazy lines",
    at: `> a\n${plainLines(MAX_LAZY_LINES)}\n`,
    past: `> a\n${plainLines(MAX_LAZY_LINES + 1)}\n`,
    names: /more than 2,000 lines in a row continuing a block quote/
  },
  {
    name: "container work",
    at: `${Array.from({ length: MAX_CONTAINER_WORK / 10_000 }, () => `${">".repeat(100)} x`).join("\n")}\n`,
    past: `${Array.from({ length: MAX_CONTAINER_WORK / 10_000 + 1 }, () => `${">".repeat(100)} x`).join("\n")}\n`,
    names: /nested too deeply on too many lines/
  },
  {
    name: "lines",
    at: "a\n\n".repeat(MAX_LINES),
    past: "a\n\n".repeat(MAX_LINES + 1),
    names: /more than 10,000 lines that are not blank/
  },
  {
    name: "table cells",
    at: `${"|a".repeat(MAX_TABLE_PIPES / 2 - 1)}|\n${"|-".repeat(MAX_TABLE_PIPES / 2 - 1)}|\n`,
    past: `${"|a".repeat(MAX_TABLE_PIPES / 2)}|\n${"|-".repeat(MAX_TABLE_PIPES / 2)}|\n`,
    names: /more than 10,000 table cells/
  }
]

for (const bound of BOUNDS) {
  t.test(`${bound.name}: a document at the bound passes, one past it is refused by name`, async (t) => {
    t.equal(refusal(bound.at), undefined, "at the bound")
    const message = refusal(bound.past)
    t.ok(message?.startsWith(DOCUMENT_LIMIT_PREFIX), "past it", { message })
    t.match(message, bound.names)
  })
}

t.test("escaped markers, markers inside container markers and footnote labels count as the parser sees them", async (t) => {
  t.equal(refusal("\\*".repeat(MAX_INLINE_MARKERS)), undefined, "an escape counts once, not with what it escapes")
  t.match(refusal("www.a.com ".repeat(MAX_INLINE_MARKERS + 1)), /in one paragraph/, "autolink literals count")
  t.equal(refusal(`${"> - 1. * ".repeat(5_000)}deep\n`), undefined, "list markers at a line's start are containers, cut to 100")
  t.match(refusal(`x[^a]\n\n${"[^a]: ".repeat(2_000)}deep\n`), /nested too deeply/, "footnote definitions nest like block quotes")
  t.equal(refusal(`x[^a]\n\n${"[^a]: ".repeat(100)}deep\n`), undefined, "a hundred of them on one line pass")
  t.match(refusal(`> a\n${" b\n".repeat(MAX_LAZY_LINES + 1)}`), /lines in a row/, "lazy lines under a block quote may be indented")
  t.equal(refusal(`- a\n${"  b\n".repeat(MAX_LAZY_LINES + 1)}`), undefined, "lines indented to a list item's content are not lazy")
  // A list item starts a paragraph of its own: 10,000 items of one emphasis each are 10,000 paragraphs.
  t.equal(refusal("- *a* b\n".repeat(MAX_LINES / 2)), undefined, "markers counted per list item")
  t.match(
    refusal(`a\n${"2. *a* b\n".repeat(MAX_LINES / 2 + 1)}`),
    /in one paragraph/,
    "but an item that cannot interrupt a paragraph continues it"
  )
})

t.test("a document just inside every bound parses as CommonMark says", async (t) => {
  const root = parseMarkdown(`${"*".repeat(MAX_INLINE_MARKERS / 2)}deep${"*".repeat(MAX_INLINE_MARKERS / 2)}\n`).root
  let depth = 0
  for (let node: any = root.children[0]; node?.children; node = node.children[0]) depth++
  t.equal(depth, MAX_INLINE_MARKERS / 4 + 1, "a paragraph of 2,500 nested strong spans")
  t.throws(
    () => parseMarkdown(`> a\n${plainLines(MAX_LAZY_LINES + 1)}`),
    { name: "DocumentLimitExceeded" },
    "parseMarkdown applies the limits"
  )
})

t.test("every pathological input passes the limits or is refused by one, naming it", async (t) => {
  const outcomes = pathologicalInputs.map((input) => `${input.name}: ${refusal(input.markdown) ?? "passes"}`)
  for (const outcome of outcomes) t.match(outcome, /: (passes|the document exceeds a limit of the renderer: .+)$/)
  t.comment(outcomes.join("\n"))
})

t.test("the renderer fails a refused document as rendering_failed with the limit's message, and renders the next", async (t) => {
  const renderer = await Renderer.create({ workers: 1, timeoutMs: 120_000, warmUp: false })
  t.teardown(() => renderer.close())
  const error = await renderer
    .render({ markdown: `${"_".repeat(100_000)}deep${"_".repeat(99_996)}`, templateId: "clean" })
    .catch((e: unknown) => e)
  t.type(error, RenderingFailed)
  t.equal((error as RenderingFailed).reason, "rejected", "the document's fault")
  t.match((error as RenderingFailed).message, /^the document exceeds a limit of the renderer: more than 10,000 emphasis/)
  const next = await renderer.render({ markdown: "A letter.", templateId: "clean" })
  t.ok(isValidPdf(next.pdf), "the next document renders")
})

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, { ...database.env, PRESSROOM_SYNC_THRESHOLD_MS: "0" })
  const owner = await createAccount(server)
  const { documentId, revisionId } = await newDocument(server, owner.key, { markdown: `> a\n${"b\n".repeat(99_998)}` })
  const accepted = await preview(server, owner.key, documentId, revisionId)
  t.equal(accepted.status, 202, "the preview is accepted: 200,000 characters are within the contract")
  const ended = await awaitJob(server, owner.key, accepted.body.job.id as string)
  t.equal(ended.body.job.status, "failed")
  t.match(ended.body.job.error, {
    code: "rendering_failed",
    retryable: false,
    message: /^the document exceeds a limit of the renderer: more than 2,000 lines in a row/
  })
  await server.stop()
})
