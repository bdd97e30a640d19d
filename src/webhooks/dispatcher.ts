/**
 * The webhook dispatcher, in every process (contract section 10). One fiber fans the outbox out:
 * each event of a v2 job becomes one pending delivery per subscription that should hear it
 * (`DeliveryStore.fanOut`). `SENDERS` fibers send them: each claims a due delivery under a lease,
 * signs and sends one attempt, and records what became of it. Several senders, so that an endpoint
 * that takes the whole timeout to answer holds up one fiber, not every other subscriber; renders
 * never wait on any of them. Both sleep until a notification (an event written, deliveries
 * written) or the next retry falls due, with a slow recheck in case a notification went missing.
 */
import { Duration, Effect, Queue, Stream } from "effect"
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

/** Delivery fibers per process: a small fixed number, enough that one slow endpoint delays no one else. */
export const SENDERS = 4

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
    const deliveriesWritten = yield* Queue.sliding<void>(SENDERS)
    const everySender = Array.from({ length: SENDERS }, () => undefined)
    yield* notifications.listen(CHANNELS.eventWritten).pipe(
      Stream.runForEach(() => Queue.offer(eventWritten, undefined)),
      Effect.catchAllCause((cause) => Effect.logError(`listening on ${CHANNELS.eventWritten} stopped`, cause)),
      Effect.forkScoped
    )
    yield* notifications.listen(CHANNELS.deliveriesWritten).pipe(
      Stream.runForEach(() => Queue.offerAll(deliveriesWritten, everySender)),
      Effect.catchAllCause((cause) => Effect.logError(`listening on ${CHANNELS.deliveriesWritten} stopped`, cause)),
      Effect.forkScoped
    )
    // What was announced while listening was down was announced to no one: look now.
    yield* notifications.resumed.pipe(
      Stream.runForEach(() => Effect.zipRight(Queue.offer(eventWritten, undefined), Queue.offerAll(deliveriesWritten, everySender))),
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

    const deliver = (claimed: ClaimedDelivery) =>
      Effect.gen(function* () {
        const now = new Date()
        const secrets = signingSecrets(key, claimed.subscription, now)
        const body = deliveryBody(claimed)
        const result = yield* send({
          url: claimed.endpoint,
          headers: deliveryHeaders(claimed.id, body, secrets, now),
          body,
          timeoutMs: config.timeoutMs,
          allowPrivateNetworks: config.allowPrivateNetworks
        })
        metrics.recordDeliveryAttempt(result.outcome, result.durationMs / 1000)
        const ending = endingOf(result, claimed.attempt, config.retrySchedule, claimed.redelivery)
        const statusCode = "status" in result ? result.status : null
        if (ending._tag !== "delivered") {
          yield* Effect.logWarning("webhook delivery attempt failed").pipe(
            Effect.annotateLogs({ statusCode: String(statusCode), reason: result.reason ?? "", next: ending._tag })
          )
        }
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

    // Senders: claim a due delivery and send it; with none due, sleep until the next falls due.
    for (let i = 0; i < SENDERS; i++) {
      yield* Effect.gen(function* () {
        const claimed = yield* store.claim(owner, leaseMs)
        if (claimed !== undefined) return yield* deliver(claimed)
        const untilDue = yield* store.untilNextDue()
        // At least a moment, so that a delivery another process holds past its due time is not spun on.
        yield* untilWoken(deliveriesWritten, Math.max(50, Math.min(untilDue ?? IDLE_RECHECK_MS, IDLE_RECHECK_MS)))
      }).pipe(keepRunning("webhook sender"))
    }
    return {} as const
  })
}) {}
