/**
 * The webhook dispatcher, in every process (contract section 10). One fiber fans the outbox out:
 * each event (written for jobs of the document lifecycle only) becomes one pending delivery per subscription that should hear it
 * (`DeliveryStore.fanOut`). One claimer sends them: while fewer than `MAX_ATTEMPTS_IN_FLIGHT`
 * attempts are under way it claims a due delivery under a lease (never one of a subscription that
 * already has an attempt under way) and sends it in a fiber of its own, which signs it, sends one
 * attempt and records what became of it. So a slow or dead endpoint holds one attempt at a time,
 * however many deliveries it has due, and every other subscriber goes on being served; renders
 * never wait on any of it. Both sleep until a notification (an event written, deliveries due) or
 * the next retry falls due, with a slow recheck in case a notification went missing.
 */
import { Duration, Effect, FiberRef, HashMap, Queue, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { Notifications } from "../db/notifications.ts"
import { Metrics } from "../ops/metrics.ts"
import { KEY_LABELS, ServerKey } from "../shared/server-key.ts"
import { deliveryConfig } from "./config.ts"
import { type ClaimedDelivery, DeliveryStore, type Ending } from "./delivery-store.ts"
import { deliveryBody, deliveryHeaders } from "./delivery-message.ts"
import { signingSecrets } from "./secrets.ts"
import { type SendResult, send } from "./sender.ts"

/** The channels of migrations/0008_webhook_deliveries.sql's triggers. */
const CHANNELS = { eventWritten: "pressroom_outbox_event", deliveriesWritten: "pressroom_webhook_deliveries" } as const

/**
 * Attempts one process has under way at once. Each is one socket and at most 64 KiB of answer;
 * with one per subscription, this many endpoints must hang at once before a healthy one waits.
 */
export const MAX_ATTEMPTS_IN_FLIGHT = 16

/** Why an attempt was not sent: the subscription's sealed secret does not open under this server key. */
export const UNREADABLE_SECRET = "the signing secret cannot be read: was PRESSROOM_SERVER_KEY changed?"

/** The longest a fiber sleeps without a notification: a safety net, not a poll. */
const IDLE_RECHECK_MS = 30_000

/** A claim outlives its attempt's timeout by this much before another process may take it again. */
const LEASE_MARGIN_MS = 30_000

/** How soon a fiber tries again after the database could not answer. */
const ERROR_PAUSE = Duration.seconds(1)

/**
 * What becomes of a delivery after its `attempt`-th attempt, under the retry schedule; a
 * redelivery the owner asked for is tried once.
 */
export const endingOf = (result: SendResult, attempt: number, schedule: ReadonlyArray<number>, redelivery: boolean): Ending => {
  if (result.outcome === "delivered") return { _tag: "delivered" }
  if ("status" in result && result.status === 410) return { _tag: "gone" }
  const delaySeconds = redelivery ? undefined : schedule[attempt]
  return delaySeconds === undefined ? { _tag: "failed" } : { _tag: "retry", delaySeconds }
}

/**
 * A failed attempt as one log line, annotations and all: an endpoint that keeps failing (a host
 * that does not resolve) is retried for days, and the pretty logger would give each annotation a
 * line of its own.
 */
const attemptFailed = (claimed: ClaimedDelivery, statusCode: number | null, reason: string | undefined, ending: Ending) => {
  const status = statusCode === null ? "" : ` (HTTP ${statusCode})`
  const next = ending._tag === "retry" ? `retry in ${ending.delaySeconds} s` : ending._tag
  const problem = (reason ?? "no reason").replace(/\s+/g, " ")
  return Effect.logWarning(`webhook delivery ${claimed.id} attempt ${claimed.attempt} failed: ${problem}${status}; next: ${next}`).pipe(
    Effect.locally(FiberRef.currentLogAnnotations, HashMap.empty())
  )
}

export class Dispatcher extends Effect.Service<Dispatcher>()("pressroom/Dispatcher", {
  scoped: Effect.gen(function* () {
    const config = yield* deliveryConfig
    const store = yield* DeliveryStore
    const metrics = yield* Metrics
    const notifications = yield* Notifications
    const key = (yield* ServerKey).deriveKey(KEY_LABELS.webhookSecrets)
    const owner = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
    const leaseMs = config.timeoutMs + LEASE_MARGIN_MS

    const eventWritten = yield* Queue.sliding<void>(1)
    const deliveriesDue = yield* Queue.sliding<void>(1)
    yield* notifications.listen(CHANNELS.eventWritten).pipe(
      Stream.runForEach(() => Queue.offer(eventWritten, undefined)),
      Effect.catchAllCause((cause) => Effect.logError(`listening on ${CHANNELS.eventWritten} stopped`, cause)),
      Effect.forkScoped
    )
    yield* notifications.listen(CHANNELS.deliveriesWritten).pipe(
      Stream.runForEach(() => Queue.offer(deliveriesDue, undefined)),
      Effect.catchAllCause((cause) => Effect.logError(`listening on ${CHANNELS.deliveriesWritten} stopped`, cause)),
      Effect.forkScoped
    )
    // What was announced while listening was down was announced to no one: look now.
    yield* notifications.resumed.pipe(
      Stream.runForEach(() => Effect.zipRight(Queue.offer(eventWritten, undefined), Queue.offer(deliveriesDue, undefined))),
      Effect.forkScoped
    )

    const untilWoken = (queue: Queue.Queue<void>, ms: number) => Queue.take(queue).pipe(Effect.timeout(Duration.millis(ms)), Effect.ignore)

    const keepRunning = (name: string) => (loop: Effect.Effect<void>) =>
      loop.pipe(
        Effect.catchAllCause((cause) => Effect.zipRight(Effect.logError(`${name} failed`, cause), Effect.sleep(ERROR_PAUSE))),
        Effect.forever,
        Effect.forkScoped
      )

    // Fan-out: every undispatched event, a batch at a time, then sleep.
    yield* Effect.gen(function* () {
      const { events } = yield* store.fanOut(config.retrySchedule[0]!)
      if (events === 0) yield* untilWoken(eventWritten, IDLE_RECHECK_MS)
    }).pipe(keepRunning("webhook fan-out"))

    /** Signs and sends one attempt; a secret that does not open fails the attempt, unsent, on the schedule. */
    const attempt = (claimed: ClaimedDelivery): Effect.Effect<SendResult> => {
      const now = new Date()
      return Effect.try(() => signingSecrets(key, claimed.subscription, now)).pipe(
        Effect.matchEffect({
          onFailure: () =>
            Effect.as(Effect.logError(UNREADABLE_SECRET).pipe(Effect.annotateLogs({ subscriptionId: claimed.subscription.id })), {
              outcome: "failed",
              reason: UNREADABLE_SECRET,
              durationMs: 0
            } as const),
          onSuccess: (secrets) => {
            const body = deliveryBody(claimed)
            return send({
              url: claimed.endpoint,
              headers: deliveryHeaders(claimed.id, body, secrets, now),
              body,
              timeoutMs: config.timeoutMs,
              allowPrivateNetworks: config.allowPrivateNetworks
            })
          }
        })
      )
    }

    const deliver = (claimed: ClaimedDelivery) =>
      Effect.gen(function* () {
        const result = yield* attempt(claimed)
        metrics.recordDeliveryAttempt(result.outcome, result.durationMs / 1000)
        const ending = endingOf(result, claimed.attempt, config.retrySchedule, claimed.redelivery)
        const statusCode = "status" in result ? result.status : null
        if (ending._tag !== "delivered") yield* attemptFailed(claimed, statusCode, result.reason, ending)
        yield* store.record(
          { id: claimed.id, attempt: claimed.attempt, owner, subscriptionId: claimed.subscription.id },
          {
            statusCode,
            reason: result.reason ?? null,
            durationMs: result.durationMs,
            // PostgreSQL text holds no NUL.
            excerpt: "excerpt" in result ? result.excerpt.replaceAll("\u0000", "") : null
          },
          ending,
          config.disableAfterSeconds
        )
      }).pipe(Effect.annotateLogs({ deliveryId: claimed.id, attempt: String(claimed.attempt) }))

    // The claimer: with an attempt slot free, claim a due delivery and send it in a fiber of its
    // own; with none due, sleep until the next falls due, deliveries are announced or an attempt
    // ends (which may free a subscription's next delivery).
    const slots = yield* Effect.makeSemaphore(MAX_ATTEMPTS_IN_FLIGHT)
    // Attempts run in the dispatcher's scope: a process that stops interrupts them (their leases lapse).
    const scope = yield* Effect.scope
    yield* Effect.gen(function* () {
      yield* slots.take(1)
      const claimed = yield* store.claim(owner, leaseMs).pipe(Effect.tapErrorCause(() => slots.release(1)))
      if (claimed === undefined) {
        yield* slots.release(1)
        const untilDue = yield* store.untilNextDue()
        // At least a moment, so that a delivery another process holds past its due time is not spun on.
        return yield* untilWoken(deliveriesDue, Math.max(50, Math.min(untilDue ?? IDLE_RECHECK_MS, IDLE_RECHECK_MS)))
      }
      yield* deliver(claimed).pipe(
        Effect.catchAllCause((cause) => Effect.logError("webhook delivery attempt could not be recorded", cause)),
        Effect.ensuring(Effect.zipRight(slots.release(1), Queue.offer(deliveriesDue, undefined))),
        Effect.forkIn(scope)
      )
    }).pipe(keepRunning("webhook delivery claimer"))
    return {} as const
  })
}) {}
