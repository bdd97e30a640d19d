/**
 * The rescuer: jobs whose lease lapsed belong to a process that died, paused or lost the
 * database. Each is re-queued with a new fencing token (so the lost holder can never write it)
 * after the retry policy's backoff, failed when it has used all its attempts, or cancelled when a
 * cancel was waiting for it. Every
 * process runs one; `skip locked` keeps two rescuers off the same job. A job re-queued for later
 * is announced by nobody when it falls due (the database announces only jobs due at once), so
 * the rescuer's process wakes its own slots then, as it does for its own retries.
 */
import { SqlClient } from "@effect/sql"
import { Duration, Effect } from "effect"
import * as JobErrors from "./job-errors.ts"
import { JobStore } from "./job-store.ts"
import { JobLifecycle } from "./lifecycle.ts"
import { delayBeforeAttempt, mayRetry } from "./retry-policy.ts"

/** A job put back in the queue, and how long until it is due. */
export interface Requeued {
  readonly jobId: string
  readonly delayMs: number
}

/** Rescues every lapsed job in one transaction; the jobs it re-queued, each due after its backoff. */
export const rescueLapsedJobs = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const store = yield* JobStore
  const lifecycle = yield* JobLifecycle
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      const lapsed = yield* store.lapsed
      const requeued: Array<Requeued> = []
      for (const job of lapsed) {
        if (job.cancelRequestedAt !== null) {
          yield* lifecycle.endUnclaimed(job, "cancelled", JobErrors.cancelled())
        } else if (mayRetry(job.attemptCount)) {
          const delayMs = delayBeforeAttempt(job.attemptCount + 1)
          yield* store.requeueLapsed(job.id, delayMs)
          requeued.push({ jobId: job.id, delayMs })
        } else {
          yield* lifecycle.endUnclaimed(job, "failed", JobErrors.exhausted())
        }
      }
      return requeued
    })
  )
}).pipe(Effect.orDie)

/** Looks for lapsed leases every half lease; `wakeWhenDue` is told of each job it re-queued. */
export const runRescuer = <R>(leaseMs: number, wakeWhenDue: (requeued: Requeued) => Effect.Effect<void, never, R>) =>
  rescueLapsedJobs.pipe(
    Effect.flatMap((requeued) => Effect.forEach(requeued, wakeWhenDue, { discard: true })),
    Effect.catchAllCause((cause) => Effect.logError("rescuer failed", cause)),
    Effect.zipRight(Effect.sleep(Duration.millis(leaseMs / 2))),
    Effect.forever
  )
