/**
 * The renderer as an Effect service: the pool starts (fonts verified, workers warm) when the layer
 * is built and stops when its scope closes.
 */
import { Effect, Schema } from "effect"
import { rendererConfig } from "./config.ts"
import { FontSetError } from "./fonts/manifest.ts"
import { InvalidRenderRequest, type RenderPlan, type RenderRequest, type RenderResult, Renderer, RenderingFailed } from "./renderer.ts"

/** The renderer could not start: a font file is missing or altered, or the compiler failed to load. */
export class RendererUnavailable extends Schema.TaggedError<RendererUnavailable>()("RendererUnavailable", {
  message: Schema.String
}) {}

export class RenderService extends Effect.Service<RenderService>()("pressroom/RenderService", {
  scoped: Effect.gen(function* () {
    const config = yield* rendererConfig
    const renderer = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => Renderer.create(config),
        catch: (error) =>
          new RendererUnavailable({ message: error instanceof FontSetError ? error.message : `renderer failed to start: ${String(error)}` })
      }),
      (renderer) => Effect.promise(() => renderer.close())
    )
    // Interrupting the fiber (a cancelled job, a shutdown) aborts the signal, which ends the render
    // and frees its compiler worker at once instead of letting it typeset for nobody.
    const rendering = (
      run: (signal: AbortSignal) => Promise<RenderResult>
    ): Effect.Effect<RenderResult, InvalidRenderRequest | RenderingFailed> =>
      Effect.tryPromise({ try: run, catch: (error) => error }).pipe(
        Effect.catchAll((error) =>
          error instanceof InvalidRenderRequest || error instanceof RenderingFailed ? Effect.fail(error) : Effect.die(error)
        )
      )
    const render = (request: RenderRequest) => rendering((signal) => renderer.render(request, { signal }))
    /** Renders what `plan` planned, without planning it again. */
    const renderPlanned = (plan: RenderPlan) => rendering((signal) => renderer.renderPlanned(plan, { signal }))
    const plan = (request: RenderRequest): Effect.Effect<RenderPlan, InvalidRenderRequest> =>
      Effect.try({ try: () => renderer.plan(request), catch: (error) => error }).pipe(
        Effect.catchAll((error) => (error instanceof InvalidRenderRequest ? Effect.fail(error) : Effect.die(error)))
      )
    return {
      render,
      plan,
      renderPlanned,
      workerReplacements: () => renderer.workerReplacements(),
      catalogSha256: renderer.catalogSha256
    } as const
  })
}) {}
