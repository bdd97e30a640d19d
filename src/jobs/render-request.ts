/**
 * What the renderer is asked for a job: its spec, its channel and its request hash. One function,
 * so that the supervisor's render and `pressroom audit`'s re-render cannot drift apart.
 */
import { type RenderRequest, uncheckedRequest } from "../render/renderer.ts"
import type { Job } from "./job.ts"

/** The render of `job`; `markdown` replaces the job's own when its source is elsewhere (a revision). */
export const renderRequestOf = (job: Job, markdown: string = job.renderSpec.markdown): RenderRequest => {
  const spec = job.renderSpec
  return uncheckedRequest({
    markdown,
    templateId: spec.templateId,
    locale: spec.locale,
    options: spec.options,
    ...(spec.overrides ? { overrides: spec.overrides } : {}),
    channel: job.channel,
    requestSha256: job.requestSha256
  })
}
