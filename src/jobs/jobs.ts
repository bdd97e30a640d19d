/**
 * Jobs as the API sees them: admission (the job and its unit reservation in one transaction),
 * waiting for a job to end, and cancellation. Rendering is the supervisor's.
 */
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Option, Queue } from "effect"
import { randomUUID } from "node:crypto"
import { memberOf, type Principal } from "../accounts/principal.ts"
import { Ledger } from "../entitlements/ledger.ts"
import { InvalidStateTransition, NotFound } from "../shared/errors.ts"
import { CATALOG_VERSION } from "../render/catalog.ts"
import type { Channel, Provenance } from "../render/provenance.ts"
import { rendererVersion } from "../render/renderer.ts"
import { RenderService } from "../render/service.ts"
import type { Locale } from "../render/locales.ts"
import { jcsSha256, sha256Hex } from "../shared/hash.ts"
import * as JobErrors from "./job-errors.ts"
import { CANCELLABLE_STATUSES, isTerminal, type Job, type Purpose, type RenderSpec } from "./job.ts"
import { JobStore } from "./job-store.ts"
import { JobLifecycle } from "./lifecycle.ts"
import { JobSignals, SIGNALS } from "./signals.ts"

export interface Admission {
  readonly principal: Principal
  readonly purpose: Purpose
  readonly channel: Channel
  readonly spec: RenderSpec
  readonly requestSha256: string
  readonly documentId?: string
  readonly revisionId?: string
}

/** Provenance known at admission; the render fills in the rest (template, fonts, engine). */
export const admittedProvenance = (admission: Admission, catalogSha256: string): Provenance => ({
  assetSetSha256: null,
  catalogSha256,
  fontSetSha256: null,
  manifestSha256: null,
  renderOptionsSha256: null,
  rendererReleaseChecksum: null,
  templateDefinitionSha256: null,
  templateReleaseSha256: null,
  optionsSha256: jcsSha256(admission.spec.options),
  requestSha256: admission.requestSha256,
  sourceSha256: sha256Hex(admission.spec.markdown),
  catalogVersion: CATALOG_VERSION,
  rendererVersion,
  engineVersion: null,
  channel: admission.channel,
  locale: admission.spec.locale as Locale,
  templateId: admission.spec.templateId,
  templateReleaseId: null,
  synthetic: false
})

/** The unit count of a final publication and of a v1 conversion (contract section 6). */
const FINAL_UNITS = 1

/** While a job runs, how often a waiter re-reads it in case a notification went missing. */
const AWAIT_RECHECK = Duration.seconds(5)

export class Jobs extends Effect.Service<Jobs>()("pressroom/Jobs", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* JobStore
    const ledger = yield* Ledger
    const lifecycle = yield* JobLifecycle
    const signals = yield* JobSignals
    const { catalogSha256 } = yield* RenderService

    const ownJob = (principal: Principal, jobId: string) =>
      Effect.flatMap(store.find(jobId), (job) =>
        Option.isSome(job) && job.value.accountId === principal.accountId
          ? Effect.succeed(job.value)
          : Effect.fail(new NotFound({ resource: "job" }))
      )

    /**
     * Inserts the job (queued) and reserves its unit in one transaction; 402 when no unit is left.
     * The admission is worked out inside that transaction, so that what it reads and locks (a
     * document's row, which its deletion also locks) holds until the job is written.
     */
    const admit = <E>(admitting: Effect.Effect<Admission, E>) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const admission = yield* admitting
            const jobId = randomUUID()
            const accountId = admission.principal.accountId
            const entitlement =
              admission.purpose === "final"
                ? yield* ledger.reserve({ accountId, jobId, units: FINAL_UNITS, channel: admission.channel })
                : yield* ledger.snapshot(accountId, 0, admission.channel)
            return yield* store.insert({
              id: jobId,
              accountId,
              memberId: memberOf(admission.principal),
              documentId: admission.documentId ?? null,
              revisionId: admission.revisionId ?? null,
              purpose: admission.purpose,
              channel: admission.channel,
              renderSpec: admission.spec,
              requestSha256: admission.requestSha256,
              entitlement,
              provenance: admittedProvenance(admission, catalogSha256)
            })
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    /** Waits on `ended` (subscribed before `job` was admitted) until the job is terminal or the deadline passes. */
    const awaitEnd = (ended: Queue.Dequeue<string>, admitted: Job, deadline: number) =>
      Effect.gen(function* () {
        let job = admitted
        while (true) {
          const left = deadline - Date.now()
          if (isTerminal(job.status) || left <= 0) return job
          yield* Queue.take(ended).pipe(
            Effect.repeat({ until: (id) => id === job.id }),
            Effect.timeoutOption(Duration.min(Duration.millis(left), AWAIT_RECHECK))
          )
          job = Option.getOrThrow(yield* store.find(job.id))
        }
      })

    return {
      /**
       * Admits a job and waits for it to end: the job once it is terminal, or as it stands after
       * `timeout`. The wait listens before the job exists, so the admitted job needs no re-read
       * and no ending can slip past. `onInterrupt` runs when the caller stops waiting early.
       */
      admitAndAwait: <E>(
        admission: Effect.Effect<Admission, E>,
        timeout: Duration.DurationInput,
        onInterrupt: (job: Job) => Effect.Effect<void>
      ) =>
        Effect.scoped(
          Effect.gen(function* () {
            const ended = yield* signals.subscribe(SIGNALS.jobEnded)
            const deadline = Date.now() + Duration.toMillis(timeout)
            const admitted = yield* admit(admission)
            return yield* awaitEnd(ended, admitted, deadline).pipe(Effect.onInterrupt(() => onInterrupt(admitted)))
          })
        ),

      /**
       * Cancels a job: a queued one at once (cancelled), a running one by asking its holder to stop
       * the render, waiting up to `wait` for it to end (cancelled, or still running when the
       * holder has not answered by then).
       */
      cancel: (principal: Principal, jobId: string, wait: Duration.DurationInput = Duration.zero) =>
        Effect.scoped(
          Effect.gen(function* () {
            yield* ownJob(principal, jobId)
            const ended = yield* signals.subscribe(SIGNALS.jobEnded)
            const deadline = Date.now() + Duration.toMillis(wait)
            const after = yield* sql.withTransaction(
              Effect.gen(function* () {
                const job = Option.getOrThrow(yield* store.lock(jobId))
                if (!CANCELLABLE_STATUSES.includes(job.status)) {
                  return yield* Effect.fail(new InvalidStateTransition({ currentState: job.status, expectedStates: CANCELLABLE_STATUSES }))
                }
                if (job.status === "running") {
                  yield* store.requestCancel(jobId)
                } else {
                  yield* lifecycle.endUnclaimed(job, "cancelled", JobErrors.cancelled())
                }
                return Option.getOrThrow(yield* store.find(jobId))
              })
            )
            return yield* awaitEnd(ended, after, deadline)
          })
        ).pipe(Effect.catchTag("SqlError", Effect.die)),

      find: ownJob
    } as const
  })
}) {}

export type { Job }
