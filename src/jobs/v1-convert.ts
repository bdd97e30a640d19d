/**
 * `POST /api/v1/convert` (specification section 4, contract section 8): a final job on channel
 * `rest_v1`, admitted like any other (unit reserved in the same transaction), rendered by the
 * supervisor, and awaited; the PDF comes back in the response. A client that disconnects before
 * the job ends cancels it, so its unit is released rather than charged for bytes nobody got.
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Option } from "effect"
import { requireScope } from "../accounts/principal.ts"
import { storageKeyOf } from "../artifacts/repository.ts"
import { ArtifactStore } from "../artifacts/store.ts"
import { RateLimiter } from "../entitlements/rate-limiter.ts"
import { ApiError, internalError, notFound, serviceUnavailable, unprocessable } from "../http/api-error.ts"
import { PressroomApi } from "../http/api.ts"
import { attachment } from "../http/content-disposition.ts"
import type { ConvertRequest } from "../http/groups/v1.ts"
import { V1_TEMPLATE_IDS } from "../render/catalog.ts"
import { jcsSha256 } from "../shared/hash.ts"
import { CustomTemplates } from "../templates/repository.ts"
import { MAX_ATTEMPTS, retryDelayMs, supervisorConfig } from "./config.ts"
import { Jobs } from "./jobs.ts"
import { toRenderSpec } from "./render-spec.ts"

const DEFAULT_FILENAME = "document.pdf"

export const V1Handlers = HttpApiBuilder.group(PressroomApi, "v1", (handlers) =>
  Effect.gen(function*() {
    const jobs = yield* Jobs
    const rateLimiter = yield* RateLimiter
    const customTemplates = yield* CustomTemplates
    const storage = yield* ArtifactStore
    const { renderTimeoutMs } = yield* supervisorConfig
    // Every attempt may run to the render deadline, with backoff between them.
    const longestJob = Duration.millis(
      MAX_ATTEMPTS * renderTimeoutMs + retryDelayMs(1) + retryDelayMs(2) + 30_000
    )

    const specOf = (accountId: string, request: ConvertRequest) =>
      Effect.gen(function*() {
        const custom = request.customTemplateId === undefined
          ? Option.none()
          : Option.some(Option.getOrElse(yield* customTemplates.findForOwner(accountId, request.customTemplateId), () => undefined))
        if (Option.isSome(custom) && custom.value === undefined) return yield* Effect.fail(notFound("custom template"))
        const base = Option.getOrUndefined(custom)
        if (base && request.templateId !== undefined && request.templateId !== base.baseTemplateId) {
          return yield* Effect.fail(unprocessable("templateId: differs from the custom template's baseTemplateId; send one of them"))
        }
        const { paper, fontFamily, ...customOptions } = base?.options ?? {}
        return yield* toRenderSpec({
          markdown: request.markdown,
          templateId: base?.baseTemplateId ?? request.templateId ?? "clean",
          // A custom template may build on any catalog template; a bare v1 request offers the v1 set.
          ...(base ? {} : { allowedTemplates: V1_TEMPLATE_IDS }),
          locale: request.locale ?? "en",
          // Request options override the custom template's (contract section 8).
          options: { ...customOptions, ...request.options },
          overrides: {
            ...(paper !== undefined ? { paper } : {}),
            ...(fontFamily !== undefined ? { fontFamily } : {})
          },
          filename: request.filename ?? DEFAULT_FILENAME
        })
      })

    return handlers.handle("convert", ({ payload }) =>
      Effect.gen(function*() {
        const principal = yield* requireScope("documents.render")
        yield* rateLimiter.take(principal.accountId, "convert")
        const spec = yield* specOf(principal.accountId, payload)
        const requestSha256 = jcsSha256({ operation: "v1.convert", pathParams: {}, body: payload })
        const cancel = (jobId: string) => jobs.cancel(principal, jobId).pipe(Effect.ignore)
        const job = yield* jobs.admitAndAwait({ principal, purpose: "final", channel: "rest_v1", spec, requestSha256 }, longestJob, (admitted) => cancel(admitted.id))
        switch (job.status) {
          case "succeeded": {
            // The artifact's bytes are stored under a key made from its id alone.
            const pdf = yield* storage.get(storageKeyOf(job.artifactId!)).pipe(
              Effect.mapError(() => serviceUnavailable("the PDF is temporarily unreadable; retry"))
            )
            return HttpServerResponse.uint8Array(pdf, {
              contentType: "application/pdf",
              headers: { "content-disposition": attachment(job.renderSpec.filename) }
            })
          }
          case "failed":
            return yield* Effect.fail(job.error ? new ApiError({ ...job.error }) : internalError())
          case "cancelled":
            return yield* Effect.fail(internalError())
          default:
            yield* cancel(job.id)
            return yield* Effect.fail(serviceUnavailable("the conversion did not finish in time; retry"))
        }
      }))
  }))
