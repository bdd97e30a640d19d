/**
 * The rescuer: jobs whose lease lapsed belong to a process that died, paused or lost the
 * database. Each is re-queued with a new fencing token (so the lost holder can never write it)
 * after the retry policy's backoff, failed when it has used all its attempts, or cancelled when a
 * cancel was waiting for it. Every
 * process runs one; `skip locked` keeps two rescuers off the same job.
 */
import { SqlClient } from "@effect/sql"
import { Duration, Effect } from "effect"
import * as JobErrors from "./job-errors.ts"
import { JobStore } from "./job-store.ts"
import { JobLifecycle } from "./lifecycle.ts"
import { delayBeforeAttempt, mayRetry } from "./retry-policy.ts"

export const rescueLapsedJobs = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const store = yield* JobStore
  const lifecycle = yield* JobLifecycle
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      const lapsed = yield* store.lapsed
      for (const job of lapsed) {
        if (job.cancelRequestedAt !== null) {
          yield* lifecycle.endUnclaimed(job, "cancelled", JobErrors.cancelled())
        } else if (mayRetry(job.attemptCount)) {
          yield* store.requeueLapsed(job.id, delayBeforeAttempt(job.attemptCount + 1))
        } else {
          yield* lifecycle.endUnclaimed(job, "failed", JobErrors.exhausted())
        }
      }
      return lapsed.length
    })
  )
}).pipe(Effect.orDie)

/** Looks for lapsed leases every half lease. */
export const runRescuer = (leaseMs: number) =>
  rescueLapsedJobs.pipe(
    Effect.catchAllCause((cause) => Effect.logError("rescuer failed", cause)),
    Effect.zipRight(Effect.sleep(Duration.millis(leaseMs / 2))),
    Effect.forever
  )
