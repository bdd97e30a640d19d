/**
 * The job endpoints: get (scope documents.read) and cancel (documents.render for a final job,
 * documents.preview for a preview: the job is read first, and another owner's is a 404 whatever
 * the key's scopes). A running job's cancel waits up to the synchronous threshold for the render
 * to stop: 200 when it has, 202 while it is still stopping.
 */
import { HttpApiBuilder } from "@effect/platform"
import { Duration, Effect } from "effect"
import { Admission } from "../admission/admission.ts"
import { PressroomApi } from "../http/api.ts"
import { JobResponses } from "./job-response.ts"
import { syncThresholdMs } from "./sync-threshold.ts"
import { Jobs } from "./jobs.ts"
import { cancelJob } from "./operations.ts"

export const JobsHandlers = HttpApiBuilder.group(PressroomApi, "jobs", (handlers) =>
  Effect.gen(function* () {
    const admission = yield* Admission
    const jobs = yield* Jobs
    const responses = yield* JobResponses
    const threshold = Duration.millis(yield* syncThresholdMs)

    return handlers
      .handle("get", ({ path }) =>
        Effect.flatMap(admission.admit("documents.read", "read"), (principal) =>
          Effect.flatMap(jobs.find(principal, path.jobId), responses.body)
        )
      )
      .handle("cancel", ({ headers, path, payload }) =>
        admission.mutate(
          ["documents.render", "documents.preview"],
          "write",
          { operation: "jobs.cancel", key: headers["idempotency-key"], pathParams: { jobId: path.jobId }, body: payload ?? {} },
          (principal) =>
            // 200 once the job has ended (cancelled, or done before the cancel reached its render), 202 while it runs.
            Effect.flatMap(cancelJob(principal, path.jobId, threshold), (after) => responses.response(after)).pipe(
              Effect.provideService(Jobs, jobs)
            )
        )
      )
  })
)
