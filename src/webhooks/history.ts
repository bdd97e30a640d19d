/**
 * Delivery history (an extension of the specification): a subscription's deliveries, newest
 * first, with every attempt; redelivery on the owner's request; and the sweep that removes ended
 * deliveries and dispatched outbox events once they are older than the history period. Callers
 * have checked that the subscription is the owner's; every statement names it.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { CursorPosition } from "../shared/pagination.ts"
import { AttemptRow, DeliveryRow, type DeliveryWithAttempts } from "./delivery.ts"

/** How many ended deliveries, and then events, one sweep removes at most. */
const SWEEP_BATCH = 1000

const decodeDeliveries = Schema.decodeUnknown(Schema.Array(DeliveryRow))
const decodeAttempts = Schema.decodeUnknown(Schema.Array(AttemptRow))

export class DeliveryHistory extends Effect.Service<DeliveryHistory>()("pressroom/DeliveryHistory", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql`id, event_type, job_id, status, attempt_count, next_attempt_at, created_at, updated_at, created_at::text as position_at`

    /** The deliveries `statement` returns, each with its attempts. */
    const withAttempts = (statement: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
      Effect.gen(function* () {
        const rows = yield* Effect.flatMap(statement, decodeDeliveries)
        if (rows.length === 0) return []
        const attempts = yield* Effect.flatMap(
          sql`
            select delivery_id, attempt, started_at, duration_ms, status_code, failure_reason, response_excerpt
            from webhook_delivery_attempts where ${sql.in(
              "delivery_id",
              rows.map((row) => row.id)
            )}
            order by attempt`,
          decodeAttempts
        )
        return rows.map(
          ({ positionAt, ...delivery }): DeliveryWithAttempts => ({
            delivery,
            attempts: attempts.filter((attempt) => attempt.deliveryId === delivery.id).map(({ deliveryId: _, ...attempt }) => attempt),
            position: { createdAt: positionAt, id: delivery.id }
          })
        )
      }).pipe(Effect.orDie)

    return {
      /** Up to `limit` of the subscription's deliveries after `after` (exclusive), newest first. */
      page: (subscriptionId: string, limit: number, after: CursorPosition | null): Effect.Effect<ReadonlyArray<DeliveryWithAttempts>> =>
        withAttempts(
          after === null
            ? sql`
                select ${columns} from webhook_deliveries where subscription_id = ${subscriptionId}
                order by created_at desc, id desc limit ${limit}`
            : sql`
                select ${columns} from webhook_deliveries where subscription_id = ${subscriptionId}
                  and (created_at, id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)
                order by created_at desc, id desc limit ${limit}`
        ),

      /**
       * Makes the subscription's delivery due now and wakes the senders. An ended one is pending
       * again for one attempt (`redelivery`), not a new run of the retry schedule; a pending one
       * keeps its schedule and is brought forward (an attempt under way goes on). None when the
       * subscription has no such delivery.
       */
      redeliver: (subscriptionId: string, deliveryId: string): Effect.Effect<Option.Option<DeliveryWithAttempts>> =>
        Effect.gen(function* () {
          const updated = yield* withAttempts(sql`
            update webhook_deliveries set
              redelivery = case when status = 'pending' then redelivery else true end,
              next_attempt_at = case when status = 'pending' then least(next_attempt_at, now()) else now() end,
              status = 'pending', updated_at = now()
            where id = ${deliveryId} and subscription_id = ${subscriptionId}
            returning ${columns}`)
          if (updated.length > 0) yield* Effect.orDie(sql`select pg_notify('pressroom_webhook_deliveries', '')`)
          return Option.fromNullable(updated[0])
        }),

      /**
       * Removes ended deliveries (and their attempts) whose last change is older than
       * `historySeconds`, then dispatched events older than that which no delivery names.
       */
      sweep: (historySeconds: number): Effect.Effect<void> =>
        Effect.zipRight(
          sql`
            delete from webhook_deliveries where id in (
              select id from webhook_deliveries
              where status <> 'pending' and updated_at < now() - make_interval(secs => ${historySeconds})
              limit ${SWEEP_BATCH})`,
          sql`
            delete from outbox_events where id in (
              select e.id from outbox_events e
              where e.dispatched_at < now() - make_interval(secs => ${historySeconds})
                and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)
              limit ${SWEEP_BATCH})`
        ).pipe(Effect.asVoid, Effect.orDie)
    } as const
  })
}) {}
