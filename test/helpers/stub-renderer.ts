/**
 * A stand-in for the renderer, for in-process tests of what the platform does around a render:
 * job states, retries, leases, units, artifacts and events. It never typesets; what a render does
 * is read from its Markdown, so a test says it in the document it submits:
 *
 *   `reject`                     Typst refuses the document (rendering_failed at once)
 *   `crash <n>`                  the first n attempts crash the worker (transient), then it renders
 *   `hold`                       the render runs until it is interrupted (cancel, shutdown)
 *   `gate <name>`                the render runs until the test calls `release(<name>)`
 *   anything else                renders at once
 *
 * Everything a user sees stays tested against the real renderer; this serves only logic tests.
 */
import { randomUUID } from "node:crypto"
import { Deferred, Effect, FiberId, Layer, Ref } from "effect"
import { type RenderPlan, type RenderRequest, type RenderResult, RenderingFailed, uncheckedRequest } from "../../src/render/renderer.ts"
import { RenderService } from "../../src/render/service.ts"
import { noWorkerReplacements } from "../../src/render/engine/engine.ts"
import { makeProvenance } from "../../src/render/provenance-hashes.ts"
import { sha256 } from "./render.ts"

export const STUB_PDF = new TextEncoder().encode("%PDF-1.7\n% a stub render, not a document\n%%EOF\n")

const hash = (text: string) => sha256(text)

const rendered = (request: RenderRequest): RenderResult => ({
  pdf: STUB_PDF,
  sha256: sha256(STUB_PDF),
  pageCount: 1,
  warnings: [],
  provenance: makeProvenance({
    assetSha256s: [],
    catalogSha256: hash("catalog"),
    fontSetSha256: hash("fonts"),
    renderOptionsSha256: hash("options"),
    rendererReleaseChecksum: hash("engine"),
    templateDefinitionSha256: hash(request.templateId),
    templateReleaseSha256: hash(request.templateId),
    optionsSha256: hash("options"),
    requestSha256: request.requestSha256 ?? hash("request"),
    sourceSha256: sha256(request.markdown),
    catalogVersion: "2026-07-22.1",
    rendererVersion: "stub",
    engineVersion: "stub",
    typstVersion: "stub",
    channel: request.channel ?? "internal",
    locale: "en",
    templateId: request.templateId,
    templateReleaseId: null,
    synthetic: false
  })
})

/**
 * The stub; how many times each document was rendered (attempts, interrupted ones included); the
 * documents in the order their renders started; and the release of a `gate`.
 */
export const stubRenderer = Effect.gen(function* () {
  const attempts = yield* Ref.make(new Map<string, number>())
  const started = yield* Ref.make<ReadonlyArray<string>>([])
  const gates = new Map<string, Deferred.Deferred<void>>()
  const gate = (name: string) => {
    const existing = gates.get(name)
    if (existing) return existing
    const made = Deferred.unsafeMake<void>(FiberId.none)
    gates.set(name, made)
    return made
  }
  const render = (request: RenderRequest): Effect.Effect<RenderResult, RenderingFailed> =>
    Effect.gen(function* () {
      const attempt = yield* Ref.modify(attempts, (counts) => {
        const n = (counts.get(request.markdown) ?? 0) + 1
        return [n, new Map(counts).set(request.markdown, n)]
      })
      yield* Ref.update(started, (order) => [...order, request.markdown])
      const [command, argument] = request.markdown.trim().split(/\s+/)
      if (command === "reject")
        return yield* Effect.fail(new RenderingFailed({ reason: "rejected", message: "the document was refused", diagnostics: [] }))
      if (command === "crash" && attempt <= Number(argument)) {
        return yield* Effect.fail(new RenderingFailed({ reason: "crashed", message: "the compiler worker crashed", diagnostics: [] }))
      }
      if (command === "hold") return yield* Effect.never
      if (command === "gate") yield* Deferred.await(gate(argument ?? ""))
      return rendered(request)
    })
  // Every plan's reuse key is new, so that no job of these logic tests is reused instead of rendered.
  const plan = (request: RenderRequest) => {
    const { assetSetSha256: _, manifestSha256: __, ...provenance } = rendered(request).provenance
    return Effect.succeed({
      typeset: {
        markdown: request.markdown,
        templateId: request.templateId,
        options: {} as never,
        locale: { code: "en", lang: "en", region: null, dir: "ltr" }
      },
      provenance: { ...provenance, typstVersion: "stub" },
      reuseKey: hash(randomUUID())
    })
  }
  // What a plan of `plan` renders: the request as far as the stub reads it.
  const renderPlanned = (planned: RenderPlan) =>
    render(
      uncheckedRequest({
        markdown: planned.typeset.markdown,
        templateId: planned.typeset.templateId,
        requestSha256: planned.provenance.requestSha256,
        channel: planned.provenance.channel
      })
    )
  const service = RenderService.make({
    render,
    plan,
    renderPlanned,
    workerReplacements: () => noWorkerReplacements,
    catalogSha256: hash("catalog")
  })
  return {
    layer: Layer.succeed(RenderService, service),
    attemptsOf: (markdown: string) => Effect.map(Ref.get(attempts), (counts) => counts.get(markdown) ?? 0),
    /** The documents whose renders have started, in the order they started. */
    started: Ref.get(started),
    /** Lets the render of `gate <name>` finish (now, or as soon as it starts). */
    release: (name: string) => Deferred.succeed(gate(name), undefined).pipe(Effect.asVoid)
  }
})
