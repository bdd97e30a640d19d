/**
 * Pressroom as a library: render Markdown to PDF without any server.
 *
 *   import { render } from "pressroom"
 *   const { pdf, provenance } = await render({ markdown: "# Hello", templateId: "clean" })
 *
 * or, in an Effect program, provide `RenderService.Default` and call `RenderService.render`.
 */
import { Effect } from "effect"
import { rendererConfig } from "./render/config.ts"
import { type RenderRequest, type RenderResult, Renderer } from "./render/renderer.ts"

export { CATALOG_VERSION, TEMPLATE_IDS, type TemplateId, V1_TEMPLATE_IDS, type V1TemplateId } from "./render/catalog.ts"
export { CREATIVE_ACCENTS, RenderOptions } from "./render/common/options.ts"
export { LOCALES, type Locale } from "./render/locales.ts"
export type { Provenance, Channel } from "./render/provenance.ts"
export type { RenderWarning } from "./render/common/warnings.ts"
export { FontSetError } from "./render/fonts/manifest.ts"
export {
  InvalidRenderRequest,
  Renderer,
  type RendererConfig,
  type RenderEngine,
  RenderingFailed,
  type RenderRequest,
  type RenderResult
} from "./render/renderer.ts"
export { RendererUnavailable, RenderService } from "./render/service.ts"
export type { WorkerReplacement, WorkerReplacements } from "./render/engine/engine.ts"
export { NativeEngineUnavailable } from "./render/engine/native-binary.ts"

let shared: Promise<Renderer> | undefined

/**
 * Renders with a renderer shared by every call of this process, started on first use with the
 * environment's settings (PRESSROOM_RENDER_ENGINE, PRESSROOM_RENDER_WORKERS, PRESSROOM_RENDER_TIMEOUT_MS). Idle workers do
 * not keep the process alive.
 */
export const render = async (request: RenderRequest): Promise<RenderResult> => {
  shared ??= Effect.runPromise(rendererConfig)
    .then((config) => Renderer.create(config))
    .catch((error: unknown) => {
      shared = undefined // a later call may succeed once the cause is fixed
      throw error
    })
  return (await shared).render(request)
}
