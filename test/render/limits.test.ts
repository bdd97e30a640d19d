/**
 * Limits: a render past its time limit fails with reason "timeout" and the pool keeps serving;
 * absurdly deep nesting renders flattened (with `nesting_flattened`), or, where the parser pays
 * quadratic time for it (list items indented one level deeper per line), fails at the deadline;
 * neither takes the process down.
 */
import t from "tap"
import type { TestContext } from "../helpers/tap.ts"
import { Renderer, RenderingFailed } from "../../src/render/renderer.ts"
import { isValidPdf, pdfText } from "../helpers/pdf.ts"
import { testEngine } from "../helpers/render.ts"

const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 1500 })
t.teardown(() => renderer.close())
// The deep inputs that are flattened render in a few seconds: a deadline far past that, so that a
// loaded machine cannot turn them into timeouts.
const patient = await Renderer.create({ engine: testEngine, workers: 1, timeoutMs: 120_000 })
t.teardown(() => patient.close())

/** A document that takes several seconds to typeset: many large tables (about 150,000 characters). */
const slowDocument = (): string => {
  const table = ["| a | b | c | d | e | f |", "|---|:-:|--:|---|---|---|"]
  for (let r = 0; r < 60; r++) table.push(`| cell ${r} | **bold ${r}** | *it* | \`code\` | [l](https://e.com/${r}) | ~~s~~ |`)
  const block = `${table.join("\n")}\n\n`
  return block.repeat(Math.floor(150_000 / block.length))
}

const expectStillServing = async (t: TestContext) => {
  const next = await renderer.render({ markdown: "after the failure\n", templateId: "clean" })
  t.ok(isValidPdf(next.pdf), "the next render succeeds")
  t.match(pdfText(next.pdf), /after the failure/)
}

t.test("a render past timeoutMs fails with reason timeout; the next render succeeds", async (t) => {
  const markdown = slowDocument()
  t.ok(markdown.length > 100_000 && markdown.length <= 200_000, `${markdown.length} characters`)
  const started = Date.now()
  try {
    await renderer.render({ markdown, templateId: "clean" })
    t.fail("the slow document should time out at 1500 ms", { ms: Date.now() - started })
  } catch (error) {
    t.type(error, RenderingFailed)
    t.equal((error as RenderingFailed).reason, "timeout")
    // Parsing, conversion and compiling all run in the worker under the deadline; the elapsed
    // time is reported, not asserted (these machines are shared and noisy).
    t.comment(`timed out after ${Date.now() - started} ms in all`)
  }
  await expectStillServing(t)
  // Both workers can time out at once and both are replaced.
  const both = await Promise.allSettled([
    renderer.render({ markdown, templateId: "clean" }),
    renderer.render({ markdown, templateId: "clean" })
  ])
  t.same(
    both.map((r) => r.status === "rejected" && (r.reason as RenderingFailed).reason),
    ["timeout", "timeout"]
  )
  const after = await Promise.all([1, 2, 3].map((i) => renderer.render({ markdown: `ok ${i}\n`, templateId: "clean" })))
  t.ok(
    after.every((r) => isValidPdf(r.pdf)),
    "the pool serves again with fresh workers"
  )
})

/**
 * Nesting past 24 levels is flattened with one `nesting_flattened` warning, the innermost text kept
 * (ARCHITECTURE.md, "Hostile input is bounded"); what micromark parses in quadratic time (list
 * items indented one level deeper per line) is held by the deadline instead. Runs of emphasis
 * were, until the build's attention resolver and deep-spans.ts made them linear.
 */
const DEEP: ReadonlyArray<{ name: string; markdown: string; outcome: "flattened" | "timeout" }> = [
  { name: "10,000 nested block quotes", markdown: `${">".repeat(10_000)} deepest text\n`, outcome: "flattened" },
  { name: "5,000 nested lists", markdown: `${"- ".repeat(5_000)}deepest text\n`, outcome: "flattened" },
  { name: "10,000 nested emphasis", markdown: `${"*".repeat(10_000)}deepest text${"*".repeat(10_000)}\n`, outcome: "flattened" },
  {
    name: "300 levels of indented lists",
    markdown: `${Array.from({ length: 300 }, (_, i) => `${"  ".repeat(i)}- level ${i}`).join("\n")}\n`,
    outcome: "timeout"
  }
]

for (const { name, markdown, outcome } of DEEP) {
  t.test(
    `${name}: ${outcome === "flattened" ? "renders flattened, the innermost text kept" : "fails at the deadline"}; the next render succeeds`,
    async (t) => {
      if (outcome === "flattened") {
        const result = await patient.render({ markdown, templateId: "clean" })
        t.ok(isValidPdf(result.pdf), "a PDF")
        t.same(
          result.warnings.map((w) => w.code),
          ["nesting_flattened"],
          "one nesting_flattened warning"
        )
        t.ok(pdfText(result.pdf).includes("deepest text"), "the innermost text is kept", { text: pdfText(result.pdf).slice(0, 200) })
      } else {
        const failure = await renderer.render({ markdown, templateId: "clean" }).then(
          () => undefined,
          (error: unknown) => error
        )
        t.type(failure, RenderingFailed, "a RenderingFailed", { error: String(failure) })
        t.equal((failure as RenderingFailed | undefined)?.reason, "timeout", "past the 1500 ms deadline")
      }
      await expectStillServing(t)
    }
  )
}
