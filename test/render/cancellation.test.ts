/**
 * Cancelling a render (a job cancelled, a fiber interrupted): a running render ends with its
 * compiler worker, which is replaced; a queued one is dropped without touching the running one.
 * The pools have one worker, so a worker that kept typesetting would hold up the next render.
 */
import t from "tap"
import { ConfigProvider, Effect, Exit, Fiber, Layer } from "effect"
import { Renderer, RenderingFailed } from "../../src/render/renderer.ts"
import { RenderService } from "../../src/render/service.ts"
import { isValidPdf } from "../helpers/pdf.ts"
import type { TestContext } from "../helpers/tap.ts"
import { testEngine } from "../helpers/render.ts"

/**
 * 186,000 characters of table, 24,000 cells: more blocks than a document may have, so it is refused
 * once parsed (markdown/block-count.ts), but its parse alone takes seconds: the tests here stop it
 * before that.
 */
const LONG = `| a | b | c | d |\n|---|---|---|---|\n${"| xx yy | zz ww | 12.5 | *e* |\n".repeat(6000)}`
/** A document of about a second. */
const MEDIUM = `${"Lorem ipsum dolor sit amet, consectetur adipiscing elit.[^n]\n\n".repeat(600)}[^n]: A note.\n`
const SHORT = "# Next\n\nA short document.\n"

/** A new worker starts and warms in a few seconds; the long render would take far longer to end. */
const WELL_BEFORE_LONG_FINISHES_MS = 15_000

const settle = <A>(promise: Promise<A>): Promise<{ readonly value?: A; readonly error?: unknown }> =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error })
  )

const isCancelled = (t: TestContext, outcome: { error?: unknown }) => {
  t.type(outcome.error, RenderingFailed, "rejects with RenderingFailed")
  t.equal((outcome.error as RenderingFailed).reason, "cancelled", "reason cancelled")
}

t.test("Renderer.render with an AbortSignal", async (t) => {
  const renderer = await Renderer.create({ engine: testEngine, workers: 1, timeoutMs: 120_000 })
  t.teardown(() => renderer.close())

  t.test("aborting a running render ends it at once and frees the worker", async (t) => {
    const before = renderer.workerReplacements()
    const controller = new AbortController()
    const long = settle(renderer.render({ markdown: LONG, templateId: "clean" }, { signal: controller.signal }))
    await new Promise((resolve) => setTimeout(resolve, 300))
    const abortedAt = Date.now()
    controller.abort()
    const outcome = await long
    t.ok(Date.now() - abortedAt < 2_000, `rejected ${Date.now() - abortedAt} ms after the abort`)
    isCancelled(t, outcome)
    t.same(
      renderer.workerReplacements(),
      { ...before, cancelled: before.cancelled + 1 },
      "its worker is counted as replaced for a cancellation"
    )
    const nextAt = Date.now()
    const next = await renderer.render({ markdown: SHORT, templateId: "clean" })
    t.ok(isValidPdf(next.pdf), "the next render succeeds on the replacement worker")
    t.ok(Date.now() - nextAt < WELL_BEFORE_LONG_FINISHES_MS, `and does not wait for the long one (${Date.now() - nextAt} ms)`)
  })

  t.test("aborting a queued render drops it and leaves the running one alone", async (t) => {
    const reference = await renderer.render({ markdown: MEDIUM, templateId: "clean" })
    const before = renderer.workerReplacements()
    const running = settle(renderer.render({ markdown: MEDIUM, templateId: "clean" }))
    const controller = new AbortController()
    const queued = settle(renderer.render({ markdown: SHORT, templateId: "clean" }, { signal: controller.signal }))
    let runningDone = false
    void running.then(() => (runningDone = true))
    await new Promise((resolve) => setTimeout(resolve, 50))
    controller.abort()
    isCancelled(t, await queued)
    t.notOk(runningDone, "the queued render is dropped before the running one finishes")
    const result = await running
    t.equal(result.error, undefined, "the running render succeeds")
    t.equal(result.value?.sha256, reference.sha256, "with the same bytes as ever")
    t.same(renderer.workerReplacements(), before, "and no worker is replaced for it")
  })

  t.test("a signal aborted before the call rejects without rendering", async (t) => {
    const startedAt = Date.now()
    isCancelled(t, await settle(renderer.render({ markdown: LONG, templateId: "clean" }, { signal: AbortSignal.abort() })))
    t.ok(Date.now() - startedAt < 500, "at once")
  })
})

t.test("interrupting RenderService.render aborts the render", async (t) => {
  const config = ConfigProvider.fromMap(
    new Map([
      ["PRESSROOM_RENDER_WORKERS", "1"],
      ["PRESSROOM_RENDER_TIMEOUT_MS", "120000"]
    ])
  )
  const program = Effect.gen(function* () {
    const service = yield* RenderService
    const fiber = yield* Effect.fork(service.render({ markdown: LONG, templateId: "clean" }))
    yield* Effect.sleep("300 millis")
    const interruptedAt = Date.now()
    const exit = yield* Fiber.interrupt(fiber)
    const interruptMs = Date.now() - interruptedAt
    const nextAt = Date.now()
    const next = yield* service.render({ markdown: SHORT, templateId: "clean" })
    return { exit, interruptMs, nextMs: Date.now() - nextAt, next }
  })
  const { exit, interruptMs, nextMs, next } = await Effect.runPromise(
    Effect.scoped(program.pipe(Effect.provide(RenderService.Default.pipe(Layer.provide(Layer.setConfigProvider(config))))))
  )
  t.ok(Exit.isInterrupted(exit), "the fiber ends interrupted")
  t.ok(interruptMs < 2_000, `the interruption completes promptly (${interruptMs} ms)`)
  t.ok(isValidPdf(next.pdf), "the next render succeeds")
  t.ok(nextMs < WELL_BEFORE_LONG_FINISHES_MS, `without waiting for the interrupted one (${nextMs} ms)`)
})
