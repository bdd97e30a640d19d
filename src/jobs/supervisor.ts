/**
 * The job supervisor: `concurrency` slots (one per render worker) that claim queued jobs, render
 * them under a lease kept alive by a heartbeat, and end them through `JobLifecycle`; a rescuer
 * that re-queues jobs whose holder vanished; and graceful shutdown. Slots sleep until a
 * notification says a job is queued (or a delayed retry falls due), never polling in a loop.
 *
 * Outcomes of an attempt:
 * - reused: an available artifact of the owner has the manifest this job would have (reuse.ts):
 *   the job succeeds over its bytes, without a render, in the same fenced transaction;
 * - rendered: bytes stored, then the success transaction (fenced);
 * - the document cannot be typeset (rejected, timeout, a trap in two fresh workers, an exhausted
 *   heap): failed at once with `rendering_failed`;
 * - a transient fault (the worker crashed, storage unavailable): retried with backoff, at most
 *   as many attempts as the retry policy allows;
 * - a cancel was asked for (by the owner, or by the document's deletion): the render is interrupted
 *   (its worker terminated) and the job cancelled; a render that finished first cannot succeed
 *   either, since the success transaction's fence refuses a job whose cancel was asked for;
 * - the lease was lost (paused or partitioned process): nothing is written; the job is someone else's;
 * - shutdown outlasted the grace period: the job goes back to the queue for another process.
 */
import { Duration, Effect, Either, Fiber, Option, Queue, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { storageKeyOf } from "../artifacts/repository.ts"
import { ArtifactStore } from "../artifacts/store.ts"
import { Metrics } from "../ops/metrics.ts"
import { unreferencedBytesRemover } from "../artifacts/shared-bytes.ts"
import type { RenderingFailed, RenderPlan } from "../render/renderer.ts"
import { RenderService } from "../render/service.ts"
import * as JobErrors from "./job-errors.ts"
import { type Claim, JobStore } from "./job-store.ts"
import { renderRequestOf } from "./render-request.ts"
import { JobLifecycle } from "./lifecycle.ts"
import { reuseFor } from "./reuse.ts"
import { delayBeforeAttempt, mayRetry, supervisorConfig } from "./retry-policy.ts"
import { type Requeued, runRescuer } from "./rescuer.ts"
import { JobSignals, SIGNALS } from "./signals.ts"

/** Why a render fiber was stopped from outside. */
type StopReason = "cancelled" | "lease_lost" | "shutdown"

interface RunningJob {
  readonly stop: (reason: StopReason) => Effect.Effect<void>
}

/**
 * The longest a slot sleeps without a notification: a safety net for a missed one (or for a
 * delayed retry whose process died before waking anyone), not a poll.
 */
const IDLE_RECHECK = Duration.seconds(30)

/** How soon a slot asks again after the database could not answer its claim. */
const CLAIM_RETRY = Duration.seconds(1)

export class Supervisor extends Effect.Service<Supervisor>()("pressroom/Supervisor", {
  scoped: Effect.gen(function* () {
    const config = yield* supervisorConfig
    const store = yield* JobStore
    const lifecycle = yield* JobLifecycle
    const signals = yield* JobSignals
    const renderer = yield* RenderService
    const storage = yield* ArtifactStore
    const removeUnreferenced = yield* unreferencedBytesRemover
    const metrics = yield* Metrics
    const scope = yield* Effect.scope
    const owner = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
    const running = new Map<string, RunningJob>()
    let accepting = true

    // One wake-up token per queued job, up to one per slot.
    const wake = yield* Queue.sliding<void>(config.concurrency)
    const queued = yield* signals.subscribe(SIGNALS.jobQueued)
    yield* Queue.take(queued).pipe(Effect.zipRight(Queue.offer(wake, undefined)), Effect.forever, Effect.forkScoped)
    // Jobs queued while notifications were lost were announced to no one: every slot looks now,
    // rather than at its next recheck. (A cancel missed meanwhile is seen by the running job's
    // heartbeat.)
    const everySlot = Array.from({ length: config.concurrency }, () => undefined)
    yield* signals.resumed.pipe(
      Stream.runForEach(() => Queue.offerAll(wake, everySlot)),
      Effect.forkScoped
    )

    const cancels = yield* signals.subscribe(SIGNALS.cancelRequested)
    yield* Queue.take(cancels).pipe(
      Effect.flatMap((jobId) =>
        Option.match(Option.fromNullable(running.get(jobId)), { onNone: () => Effect.void, onSome: (job) => job.stop("cancelled") })
      ),
      Effect.forever,
      Effect.forkScoped
    )

    const attempt = (claim: Claim) =>
      Effect.gen(function* () {
        const job = claim.job
        // Planned once: the plan finds a render to reuse and is what is rendered. A request the
        // renderer refuses has no plan, and fails as a render would.
        const plan = yield* Effect.either(renderer.plan(renderRequestOf(job)))
        if (job.cancelRequestedAt === null && Either.isRight(plan) && (yield* reused(claim, plan.right))) return
        let reason: StopReason | undefined
        const started = Date.now()
        const render = yield* Either.match(plan, { onLeft: Effect.fail, onRight: renderer.renderPlanned }).pipe(Effect.either, Effect.fork)
        const stop = (why: StopReason) =>
          Effect.suspend(() => {
            reason ??= why
            return Fiber.interrupt(render)
          }).pipe(Effect.asVoid)
        running.set(job.id, { stop })

        const heartbeat = yield* Effect.sleep(Duration.millis(config.leaseMs / 3)).pipe(
          Effect.zipRight(store.heartbeat(job.id, claim.fencingToken, config.leaseMs)),
          Effect.flatMap(
            Option.match({
              onNone: () => stop("lease_lost"),
              onSome: ({ cancelRequested }) => (cancelRequested ? stop("cancelled") : Effect.void)
            })
          ),
          // A heartbeat the database missed is not the end of the lease: the next may still be in time.
          Effect.catchAllCause((cause) => Effect.logWarning("a heartbeat failed", cause)),
          Effect.forever,
          Effect.fork
        )
        // A cancel asked before this process subscribed, or while the job was being claimed.
        if (job.cancelRequestedAt !== null) yield* stop("cancelled")

        const outcome = yield* Fiber.await(render)
        yield* Fiber.interrupt(heartbeat)
        running.delete(job.id)

        if (reason === "lease_lost") {
          yield* Effect.logWarning("lease lost; leaving the job to its new holder").pipe(Effect.annotateLogs("jobId", job.id))
          return
        }
        if (reason === "cancelled") {
          yield* lifecycle.end(claim, "cancelled", JobErrors.cancelled())
          return
        }
        if (reason === "shutdown") {
          yield* store.requeue(claim, 0)
          return
        }
        if (outcome._tag !== "Success") return yield* Effect.failCause(outcome.cause)
        const result = outcome.value
        metrics.recordRender(Either.isRight(result) ? "succeeded" : "failed", (Date.now() - started) / 1000)

        if (Either.isRight(result)) {
          const rendered = result.right
          const artifactId = randomUUID()
          const storageKey = storageKeyOf(artifactId)
          const stored = yield* Effect.either(storage.put(storageKey, rendered.pdf))
          if (Either.isLeft(stored)) return yield* retryOrFail(claim, stored.left.message)
          const ended = yield* lifecycle.succeed(claim, {
            artifactId,
            storageKey,
            bytes: rendered.pdf.byteLength,
            pageCount: rendered.pageCount,
            sha256: rendered.sha256,
            provenance: rendered.provenance,
            warnings: rendered.warnings,
            reuseKey: Either.getOrNull(Either.map(plan, (known) => known.reuseKey))
          })
          // Bytes of a lost claim, or of a job cancelled meanwhile, belong to no row: remove them.
          if (ended !== "succeeded") yield* Effect.ignore(removeUnreferenced([storageKey]))
          return
        }
        const failure = result.left
        if (failure._tag === "RenderingFailed" && failure.reason === "crashed") return yield* retryOrFail(claim, failure.message)
        if (failure._tag === "RenderingFailed") yield* logFailure(failure)
        yield* lifecycle.end(claim, "failed", JobErrors.renderingFailed(failure.message))
      }).pipe(Effect.annotateLogs({ jobId: claim.job.id, attempt: String(claim.job.attemptCount) }))

    /**
     * Ends the job over the bytes of an available artifact of its owner with the same manifest, if
     * there is one (reuse.ts): no render, no new bytes. False when the job must be rendered after
     * all: no such artifact, or it stopped being available before the ending transaction held it.
     */
    const reused = (claim: Claim, plan: RenderPlan) =>
      Effect.gen(function* () {
        const success = yield* reuseFor(claim.job, plan)
        if (Option.isNone(success)) return false
        const ended = yield* lifecycle.succeed(claim, success.value)
        if (ended === "source_gone") return false
        if (ended === "succeeded") metrics.recordReuse()
        return true
      })

    /**
     * The reason, and for a trap or an exhausted heap the pool's own account of it (a panic's
     * location, the worker's error code); never Typst's diagnostics, which may quote the document.
     */
    const logFailure = (failure: RenderingFailed) =>
      Effect.logWarning(`rendering failed: ${failure.reason}`).pipe(
        Effect.annotateLogs(
          failure.reason === "trapped" || failure.reason === "out_of_memory"
            ? { diagnostics: failure.diagnostics.join("; ").slice(0, 400) }
            : {}
        )
      )

    /**
     * A job this process put back in the queue for later (its own retry, or one it rescued): the
     * database announces only jobs due at once, so this process wakes a slot when it falls due.
     */
    const wakeWhenDue = ({ delayMs, jobId }: Requeued) =>
      Effect.sleep(Duration.millis(delayMs)).pipe(
        Effect.zipRight(signals.publishLocal(SIGNALS.jobQueued, jobId)),
        Effect.forkIn(scope),
        Effect.asVoid
      )

    const retryOrFail = (claim: Claim, reason: string) =>
      Effect.gen(function* () {
        yield* Effect.logWarning(`transient failure: ${reason}`)
        if (!mayRetry(claim.job.attemptCount)) {
          yield* lifecycle.end(claim, "failed", JobErrors.exhausted())
        } else {
          const delayMs = delayBeforeAttempt(claim.job.attemptCount + 1)
          yield* store.requeue(claim, delayMs)
          yield* wakeWhenDue({ jobId: claim.job.id, delayMs })
        }
      })

    const idle = Queue.take(wake).pipe(Effect.timeoutOption(IDLE_RECHECK))

    const slot = Effect.gen(function* () {
      while (accepting) {
        const claim = yield* Effect.either(Effect.sandbox(store.claim(owner, config.leaseMs)))
        if (Either.isLeft(claim)) {
          // The database could not answer (it is away): the slot must not end; it asks again soon.
          yield* Effect.logWarning("claiming failed; trying again in 1 s", claim.left)
          yield* Effect.sleep(CLAIM_RETRY)
        } else if (Option.isSome(claim.right)) {
          yield* attempt(claim.right.value).pipe(Effect.catchAllCause((cause) => Effect.logError("job attempt failed unexpectedly", cause)))
        } else {
          yield* idle
        }
      }
    })

    const slots = yield* Effect.forEach(Array.from({ length: config.concurrency }), () => Effect.forkDaemon(slot))
    yield* runRescuer(config.leaseMs, wakeWhenDue).pipe(Effect.forkScoped)

    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        accepting = false
        yield* Queue.offerAll(
          wake,
          Array.from({ length: config.concurrency }, () => undefined)
        )
        const finished = yield* Fiber.joinAll(slots).pipe(Effect.timeoutOption(Duration.millis(config.shutdownGraceMs)))
        if (Option.isNone(finished)) {
          yield* Effect.logWarning(`handing back ${running.size} running jobs after the shutdown grace period`)
          yield* Effect.forEach([...running.values()], (job) => job.stop("shutdown"), { discard: true })
          yield* Fiber.joinAll(slots).pipe(Effect.timeoutOption(Duration.seconds(5)))
        }
        yield* Fiber.interruptAll(slots)
      }).pipe(Effect.ignore)
    )

    return { owner } as const
  })
}) {}
