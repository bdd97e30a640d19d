/**
 * `POST /api/v1/convert` (specification section 4, contract section 8): a final job on channel
 * `rest_v1`, admitted like any other (unit reserved in the same transaction), rendered by the
 * supervisor, and awaited; the PDF comes back in the response. A client that disconnects before
 * the job ends cancels it, so its unit is released rather than charged for bytes nobody got.
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Option } from "effect"
import { Admission } from "../admission/admission.ts"
import { ArtifactRepository } from "../artifacts/repository.ts"
import { ArtifactStore } from "../artifacts/store.ts"
import { PressroomApi } from "../http/api.ts"
import { Jobs } from "../jobs/jobs.ts"
import { toRenderSpec } from "../jobs/render-spec.ts"
import { supervisorConfig, worstCaseMs } from "../jobs/retry-policy.ts"
import { V1_TEMPLATE_IDS } from "../render/catalog.ts"
import { InternalError, InvalidRequest, NotFound, PublishedError, ServiceUnavailable } from "../shared/errors.ts"
import { jcsSha256 } from "../shared/hash.ts"
import { CustomTemplates } from "../templates/repository.ts"
import type { ConvertRequest } from "./api.ts"
import { attachment, PDF_CACHE_CONTROL } from "../shared/content-disposition.ts"

const DEFAULT_FILENAME = "document.pdf"

/** Beyond the renders and their backoffs, time for queueing and storage. */
const WAIT_SLACK_MS = 30_000

export const V1Handlers = HttpApiBuilder.group(PressroomApi, "v1", (handlers) =>
  Effect.gen(function* () {
    const admission = yield* Admission
    const jobs = yield* Jobs
    const customTemplates = yield* CustomTemplates
    const storage = yield* ArtifactStore
    const artifacts = yield* ArtifactRepository
    const { renderTimeoutMs } = yield* supervisorConfig
    const longestJob = Duration.millis(worstCaseMs(renderTimeoutMs, WAIT_SLACK_MS))

    const specOf = (accountId: string, request: ConvertRequest) =>
      Effect.gen(function* () {
        const custom =
          request.customTemplateId === undefined
            ? Option.none()
            : Option.some(Option.getOrElse(yield* customTemplates.findForOwner(accountId, request.customTemplateId), () => undefined))
        if (Option.isSome(custom) && custom.value === undefined) return yield* Effect.fail(new NotFound({ resource: "custom template" }))
        const base = Option.getOrUndefined(custom)
        if (base && request.templateId !== undefined && request.templateId !== base.baseTemplateId) {
          return yield* Effect.fail(
            InvalidRequest.unprocessable("templateId: differs from the custom template's baseTemplateId; send one of them", "templateId")
          )
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
      Effect.gen(function* () {
        const principal = yield* admission.admit("documents.render", "convert")
        const spec = yield* specOf(principal.accountId, payload)
        const requestSha256 = jcsSha256({ operation: "v1.convert", pathParams: {}, body: payload })
        const cancel = (jobId: string) => jobs.cancel(principal, jobId).pipe(Effect.ignore)
        const job = yield* jobs.admitAndAwait(
          Effect.succeed({ principal, purpose: "final", channel: "rest_v1", spec, requestSha256 } as const),
          longestJob,
          (admitted) => cancel(admitted.id)
        )
        switch (job.status) {
          case "succeeded": {
            // Its row names the bytes, which a reused job shares with an earlier artifact.
            const artifact = Option.getOrThrow(yield* artifacts.find(job.artifactId!))
            const pdf = yield* storage
              .get(artifact.storageKey)
              .pipe(
                Effect.mapError(() => new ServiceUnavailable({ message: "the PDF is temporarily unreadable; retry", retryAfterSeconds: 5 }))
              )
            return HttpServerResponse.uint8Array(pdf, {
              contentType: "application/pdf",
              headers: { "content-disposition": attachment(job.renderSpec.filename), "cache-control": PDF_CACHE_CONTROL }
            })
          }
          case "failed":
            return yield* Effect.fail(job.error ? new PublishedError({ error: job.error, headers: {} }) : new InternalError())
          case "cancelled":
            return yield* Effect.fail(new InternalError())
          default:
            yield* cancel(job.id)
            return yield* Effect.fail(
              new ServiceUnavailable({ message: "the conversion did not finish in time; retry", retryAfterSeconds: 5 })
            )
        }
      })
    )
  })
)
