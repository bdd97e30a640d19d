/**
 * The `webhook_deliveries` table and the outbox's fan-out into it. Every write about an attempt
 * is fenced: it names the claim's lease owner and attempt number and the `pending` state, so an
 * attempt whose lease lapsed (and was taken again by another process) or whose subscription was
 * disabled meanwhile (its deliveries dropped) changes nothing.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { column } from "../shared/rows.ts"
import type { SealedSecrets } from "./secrets.ts"

/** How many outbox events one fan-out transaction takes. */
const FAN_OUT_BATCH = 100

/** A claimed attempt: what to send, where, and with which secrets. */
export interface ClaimedDelivery {
  readonly id: string
  readonly attempt: number
  readonly eventType: string
  readonly eventCreatedAt: Date
  /** The event's `data`, written with the job's terminal state. */
  readonly data: unknown
  readonly endpoint: string
  readonly subscription: SealedSecrets
  /** Asked for by the owner (redeliver): one attempt, not retried. */
  readonly redelivery: boolean
}

/** A row's id. */
const IdRow = Schema.Struct({ id: Schema.String })

/** A claimed delivery's row, joined with its event and its subscription's secrets. */
const ClaimedRow = Schema.Struct({
  id: Schema.String,
  attempt: column(Schema.Int, "attempt_count"),
  eventType: column(Schema.String, "event_type"),
  eventCreatedAt: column(Schema.DateFromSelf, "event_created_at"),
  payload: Schema.Unknown,
  endpoint: Schema.String,
  redelivery: Schema.Boolean,
  subscriptionId: column(Schema.String, "subscription_id"),
  secretVersion: column(Schema.Int, "secret_version"),
  secretSealed: column(Schema.String, "secret_sealed"),
  previousSecretSealed: column(Schema.NullOr(Schema.String), "previous_secret_sealed"),
  previousSecretExpiresAt: column(Schema.NullOr(Schema.DateFromSelf), "previous_secret_expires_at")
})

/** What an attempt left to record: the endpoint's status code, or why there was none. */
export interface AttemptRecord {
  readonly statusCode: number | null
  readonly reason: string | null
  readonly durationMs: number
  readonly excerpt: string | null
}

/** What becomes of a claimed delivery after its attempt. */
export type Ending =
  | { readonly _tag: "delivered" }
  /** Tried again `delaySeconds` from now. */
  | { readonly _tag: "retry"; readonly delaySeconds: number }
  /** The schedule is exhausted. */
  | { readonly _tag: "failed" }
  /** The endpoint answered 410: the subscription goes. */
  | { readonly _tag: "gone" }

export class DeliveryStore extends Effect.Service<DeliveryStore>()("pressroom/DeliveryStore", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Disables the subscription if it is active and drops its pending deliveries. */
    const disableSubscription = (subscriptionId: string) =>
      Effect.zipRight(
        sql`
          update webhook_subscriptions set status = 'disabled', disabled_at = now(), updated_at = now()
          where id = ${subscriptionId} and status = 'active'`,
        dropPending(subscriptionId)
      )
    const dropPending = (subscriptionId: string) =>
      sql`
        update webhook_deliveries set status = 'dropped', lease_owner = null, lease_expires_at = null, updated_at = now()
        where subscription_id = ${subscriptionId} and status = 'pending'`

    const undispatched = SqlSchema.findAll({
      Request: Schema.Void,
      Result: IdRow,
      execute: () => sql`
                select id from outbox_events where dispatched_at is null
                order by created_at limit ${FAN_OUT_BATCH} for update skip locked`
    })
    const fanOutEvents = SqlSchema.findAll({
      Request: Schema.Struct({ ids: Schema.Array(Schema.String), firstDelaySeconds: Schema.Number }),
      Result: IdRow,
      execute: ({ firstDelaySeconds, ids }) => sql`
                insert into webhook_deliveries (id, event_id, subscription_id, account_id, job_id, event_type, status,
                  next_attempt_at, created_at, updated_at)
                select gen_random_uuid(), e.id, s.id, e.account_id, e.job_id, e.type,
                  case when s.status = 'active' then 'pending' else 'dropped' end,
                  now() + make_interval(secs => ${firstDelaySeconds}), now(), now()
                from outbox_events e
                join webhook_subscriptions s on s.account_id = e.account_id
                  and s.created_at <= e.created_at and (s.disabled_at is null or s.disabled_at > e.created_at)
                  and s.event_types @> jsonb_build_array(e.type)
                where ${sql.in("e.id", ids)}
                on conflict (event_id, subscription_id) do nothing
                returning id`
    })
    const claimDue = SqlSchema.findOne({
      Request: Schema.Struct({ owner: Schema.String, leaseMs: Schema.Number }),
      Result: IdRow,
      execute: ({ leaseMs, owner }) => sql`
            update webhook_deliveries set lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000}),
              attempt_count = attempt_count + 1, updated_at = now()
            where id = (
              select d.id from webhook_deliveries d
              where d.status = 'pending' and d.next_attempt_at <= now() and (d.lease_expires_at is null or d.lease_expires_at <= now())
                and not exists (
                  select 1 from webhook_deliveries o
                  where o.subscription_id = d.subscription_id and o.status = 'pending' and o.lease_expires_at > now())
              order by d.next_attempt_at limit 1
              for update of d skip locked)
            returning id`
    })
    const claimed = SqlSchema.single({
      Request: Schema.String,
      Result: ClaimedRow,
      execute: (deliveryId) => sql`
            select d.id, d.attempt_count, d.event_type, e.created_at as event_created_at, e.payload, s.endpoint, d.redelivery,
              s.id as subscription_id, s.secret_version, s.secret_sealed, s.previous_secret_sealed, s.previous_secret_expires_at
            from webhook_deliveries d
            join outbox_events e on e.id = d.event_id
            join webhook_subscriptions s on s.id = d.subscription_id
            where d.id = ${deliveryId}`
    })
    const continueStreak = SqlSchema.findOne({
      Request: Schema.Struct({ subscriptionId: Schema.String, disableAfterSeconds: Schema.Number }),
      Result: Schema.Struct({ expired: Schema.Boolean }),
      execute: ({ disableAfterSeconds, subscriptionId }) => sql`
                update webhook_subscriptions set failing_since = coalesce(failing_since, now())
                where id = ${subscriptionId}
                returning failing_since <= now() - make_interval(secs => ${disableAfterSeconds}) as expired`
    })
    const nextDue = SqlSchema.single({
      Request: Schema.Void,
      Result: Schema.Struct({ ms: Schema.NullOr(Schema.Number) }),
      execute: () => sql`
          select (extract(epoch from min(case when d.lease_expires_at > now() then d.lease_expires_at else d.next_attempt_at end) - now())
            * 1000)::float8 as ms
          from webhook_deliveries d
          where d.status = 'pending' and (d.lease_expires_at > now() or not exists (
            select 1 from webhook_deliveries o
            where o.subscription_id = d.subscription_id and o.status = 'pending' and o.lease_expires_at > now()))`
    })

    return {
      /**
       * Takes up to a batch of undispatched events (skipping those another process holds) and, in
       * one transaction, writes a pending delivery, due `firstDelaySeconds` from now, for each
       * subscription of the job's owner that existed and was not disabled when the event was
       * written and lists its type (dropped at once when it has been disabled since), then marks
       * the events dispatched. Only jobs of the document lifecycle write events (src/jobs/events.ts).
       * Returns how many deliveries it wrote, and how many events it took.
       */
      fanOut: (firstDelaySeconds: number): Effect.Effect<{ events: number; deliveries: number }> =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const events = yield* undispatched(undefined)
              if (events.length === 0) return { events: 0, deliveries: 0 }
              const ids = events.map((event) => event.id)
              const written = yield* fanOutEvents({ ids, firstDelaySeconds })
              yield* sql`update outbox_events set dispatched_at = now() where ${sql.in("id", ids)}`
              return { events: events.length, deliveries: written.length }
            })
          )
          .pipe(Effect.orDie),

      /**
       * Claims the due pending delivery due longest ago that no live lease holds, for `leaseMs`,
       * counting the attempt; none when nothing is due. A subscription with an attempt under way
       * is passed over, so that one endpoint holds one attempt at a time (two processes claiming
       * at the same instant may each take one).
       */
      claim: (owner: string, leaseMs: number): Effect.Effect<ClaimedDelivery | undefined> =>
        Effect.gen(function* () {
          const due = yield* claimDue({ owner, leaseMs })
          if (Option.isNone(due)) return undefined
          const row = yield* claimed(due.value.id)
          return {
            id: row.id,
            attempt: row.attempt,
            eventType: row.eventType,
            eventCreatedAt: row.eventCreatedAt,
            data: typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload,
            endpoint: row.endpoint,
            redelivery: row.redelivery,
            subscription: {
              id: row.subscriptionId,
              secretVersion: row.secretVersion,
              secretSealed: row.secretSealed,
              previousSecretSealed: row.previousSecretSealed,
              previousSecretExpiresAt: row.previousSecretExpiresAt
            }
          }
        }).pipe(Effect.orDie),

      /**
       * Records an attempt in the delivery's history and what becomes of the delivery, fenced by
       * the claim (a late record of an attempt whose lease lapsed writes nothing). A success clears
       * the subscription's failing streak; a failure starts it (or continues it), and a streak
       * older than `disableAfterSeconds` disables the subscription, as a 410 does at once.
       */
      record: (
        claim: { id: string; attempt: number; owner: string; subscriptionId: string },
        attempt: AttemptRecord,
        ending: Ending,
        disableAfterSeconds: number
      ): Effect.Effect<void> =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const status = ending._tag === "delivered" ? "delivered" : ending._tag === "retry" ? "pending" : "failed"
              const delay = ending._tag === "retry" ? ending.delaySeconds : 0
              const updated = yield* sql`
                update webhook_deliveries set status = ${status},
                  next_attempt_at = case when ${status} = 'pending' then now() + make_interval(secs => ${delay}) else next_attempt_at end,
                  lease_owner = null, lease_expires_at = null, redelivery = false, updated_at = now()
                where id = ${claim.id} and status = 'pending' and lease_owner = ${claim.owner} and attempt_count = ${claim.attempt}
                returning id`
              if (updated.length === 0) return
              // The subscription's next due delivery waited for this attempt: announce it to every process.
              yield* sql`
                select pg_notify('pressroom_webhook_deliveries', '') where exists (
                  select 1 from webhook_deliveries
                  where subscription_id = ${claim.subscriptionId} and status = 'pending' and next_attempt_at <= now() and id <> ${claim.id})`
              yield* sql`
                insert into webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, failure_reason, response_excerpt)
                values (${claim.id}, ${claim.attempt}, now() - make_interval(secs => ${attempt.durationMs / 1000}), ${attempt.durationMs},
                  ${attempt.statusCode}, ${attempt.reason}, ${attempt.excerpt})`
              if (ending._tag === "delivered") {
                yield* sql`update webhook_subscriptions set failing_since = null where id = ${claim.subscriptionId}`
                return
              }
              const streak = yield* continueStreak({ subscriptionId: claim.subscriptionId, disableAfterSeconds })
              if (ending._tag === "gone" || Option.exists(streak, (row) => row.expired)) yield* disableSubscription(claim.subscriptionId)
            })
          )
          .pipe(Effect.asVoid, Effect.orDie),

      /**
       * Milliseconds until the next pending delivery falls due or a lease lapses; none when nothing
       * is pending. A delivery waiting for its subscription's attempt under way is left out: that
       * attempt's end announces it.
       */
      untilNextDue: (): Effect.Effect<number | undefined> =>
        nextDue(undefined).pipe(
          Effect.map(({ ms }) => (ms === null ? undefined : Math.max(0, ms))),
          Effect.orDie
        )
    } as const
  })
}) {}
