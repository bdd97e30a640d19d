/**
 * Hostile input is bounded: no Markdown document of the contract's size (200,000 characters) moves
 * the process's memory by more than 600 MiB over its warm level while it renders, the other worker
 * idle; each ends as a PDF or as `rendering_failed`, and the pool serves the next render. The
 * inputs are those of test/fixtures/pathological.ts: deep nesting, unclosed runs, definitions and
 * columns by the thousand. The ceiling is generous on purpose (bench/hostile.ts measures). The
 * main run holds a third of the inputs to it (the same third every run, the 10,000 block
 * quotes among them) under a 5 s render deadline, the time issue 37 asks of every such input;
 * PRESSROOM_TEST_FULL=1 holds every one, under the server's own deadline (test/helpers/sample.ts).
 */
import { readFileSync } from "node:fs"
import t from "tap"
import { DEFAULT_TIMEOUT_MS } from "../../src/render/engine/pool.ts"
import { Renderer, RenderingFailed } from "../../src/render/renderer.ts"
import { pathologicalInputs } from "../fixtures/pathological.ts"
import { isValidPdf, pdfText } from "../helpers/pdf.ts"
import { fullRun, sampled, share } from "../helpers/sample.ts"

const CEILING_MIB = 600

/** The process's resident memory, workers included (they are threads of it). */
const rss = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1]) * 1024

// A render that cannot finish by the deadline fails as `timeout`, and what it gathered until then
// counts against the ceiling. The main run stops each at 5 s, what issue 37 asks of any of them
// (half of a sampled run's time went to inputs that ran to a 15 s deadline); the full run lets
// each run as long as a server would.
const renderer = await Renderer.create({ workers: 2, timeoutMs: fullRun ? DEFAULT_TIMEOUT_MS : 5_000 })
t.teardown(() => renderer.close())

const warmUp = () => renderer.render({ markdown: "a *warm* `pool`, [linked](https://example.com)\n\n> - quoted\n", templateId: "clean" })
await warmUp()

const inputs = sampled(pathologicalInputs, 3)
t.comment(`${share(inputs.length, pathologicalInputs.length)} inputs`)

for (const input of inputs) {
  t.test(`${input.name}: within ${CEILING_MIB} MiB, a PDF or rendering_failed`, async (t) => {
    t.ok(input.markdown.length <= 200_000, `${input.markdown.length} characters`)
    await warmUp()
    const warm = rss()
    let peak = warm
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss())
    }, 20)
    let outcome: string
    try {
      const result = await renderer.render({ markdown: input.markdown, templateId: "clean" })
      t.ok(isValidPdf(result.pdf), "a PDF")
      outcome = `a PDF of ${result.pageCount} pages`
    } catch (error) {
      t.type(error, RenderingFailed, "or rendering_failed", { error: String(error) })
      outcome = `rendering_failed (${(error as RenderingFailed).reason})`
    } finally {
      clearInterval(sampler)
    }
    const grew = (peak - warm) / 1024 / 1024
    t.ok(grew <= CEILING_MIB, `memory grew by ${Math.round(grew)} MiB over ${Math.round(warm / 1024 / 1024)} MiB warm`)
    t.comment(`${input.name}: ${outcome}`)
    const next = await renderer.render({ markdown: "after the hostile input\n", templateId: "clean" })
    t.match(pdfText(next.pdf), /after the hostile input/, "the next render succeeds")
  })
}
