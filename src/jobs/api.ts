/** Jobs (specification 2.8, 2.13; contract sections 5 and 6): read one, cancel one. */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../accounts/security.ts"
import { IdempotencyKeyHeader } from "../idempotency/key.ts"
import { withErrors } from "../shared/error-responses.ts"
import { Forbidden, IdempotencyConflict, InvalidStateTransition, NotFound, RateLimited } from "../shared/errors.ts"
import { EmptyObject, strict } from "../shared/request-values.ts"
import { JobResponse } from "./api-schemas.ts"

const JobPath = Schema.Struct({ jobId: Schema.UUID })

/** Cancel takes no body, or `{}`. */
export const CancelRequest = Schema.NullOr(EmptyObject.annotations({ ...strict })).annotations({ identifier: "CancelRequest" })

export class JobsApi extends HttpApiGroup.make("jobs")
  .add(
    withErrors(
      HttpApiEndpoint.get("get", "/api/v2/jobs/:jobId")
        .setPath(JobPath)
        .addSuccess(JobResponse)
        .annotate(OpenApi.Summary, "Get a job (scope documents.read)"),
      "v2",
      [Forbidden, NotFound, RateLimited],
      [400]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("cancel", "/api/v2/jobs/:jobId/cancel")
        .setPath(JobPath)
        .setHeaders(IdempotencyKeyHeader)
        .setPayload(CancelRequest)
        .addSuccess(JobResponse.annotations({ description: "Cancelled (a queued job at once, with error job_cancelled)." }))
        .addSuccess(JobResponse.annotations({ description: "A running render is being stopped; poll links.self." }), { status: 202 })
        .annotate(
          OpenApi.Summary,
          "Cancel a job (scope documents.render for a final job, documents.preview for a preview); 409 once it has ended"
        ),
      "v2",
      [Forbidden, NotFound, IdempotencyConflict, InvalidStateTransition, RateLimited],
      [400, 413, 415]
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Jobs") {}
