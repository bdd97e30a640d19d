/**
 * The `webhook_subscriptions` table. Every lookup names the owner: another account's subscription
 * is not found (specification section 5, rule 7). Changes of one subscription run under its row
 * lock (`lockForOwner`), and creation under the owner's account row, so concurrent creations
 * cannot pass the cap together.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { type Subscription, SubscriptionRow } from "./subscription.ts"

const decodeRows = Schema.decodeUnknown(Schema.Array(SubscriptionRow))

/** A new subscription's row, its secret already sealed. */
export interface NewSubscription {
  readonly id: string
  readonly accountId: string
  readonly endpoint: string
  readonly eventTypes: ReadonlyArray<string>
  readonly description: string | null
  readonly secretFingerprint: string
  readonly secretSealed: string
  /** The member who made it in the dashboard; null for a key's. */
  readonly createdByMemberId: string | null
}

/** A rotation: the new secret (of the next version) and how long the current one keeps signing. */
export interface Rotation {
  readonly secretFingerprint: string
  readonly secretSealed: string
  readonly overlapSeconds: number
  /** The member who rotated in the dashboard; null for a key's. */
  readonly byMemberId: string | null
}

export class SubscriptionStore extends Effect.Service<SubscriptionStore>()("pressroom/SubscriptionStore", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql`id, account_id, endpoint, event_types, description, status, created_at, updated_at, disabled_at,
      secret_version, secret_created_at, secret_fingerprint, secret_sealed, previous_secret_sealed, previous_secret_expires_at`
    const subscriptions = (statement: Effect.Effect<ReadonlyArray<unknown>, unknown>): Effect.Effect<ReadonlyArray<Subscription>> =>
      statement.pipe(Effect.flatMap(decodeRows), Effect.orDie)
    const one = (statement: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
      Effect.map(subscriptions(statement), (rows) => Option.fromNullable(rows[0]))

    const activeCount = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ active: Schema.Int }),
      execute: (accountId) => sql`
            select count(*)::int as active from webhook_subscriptions where account_id = ${accountId} and status = 'active'`
    })

    return {
      /** Runs `effect` in one transaction. */
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)),

      /** Locks the owner's account row (in a transaction) and counts its active subscriptions. */
      lockAndCountActive: (accountId: string): Effect.Effect<number> =>
        Effect.zipRight(sql`select id from accounts where id = ${accountId} for update`, activeCount(accountId)).pipe(
          Effect.map((row) => row.active),
          Effect.orDie
        ),

      insert: (row: NewSubscription): Effect.Effect<Subscription> =>
        Effect.map(
          subscriptions(sql`
            insert into webhook_subscriptions (id, account_id, endpoint, event_types, description, status, created_at, updated_at,
              secret_version, secret_created_at, secret_fingerprint, secret_sealed, created_by_member_id, secret_created_by_member_id)
            values (${row.id}, ${row.accountId}, ${row.endpoint}, ${JSON.stringify(row.eventTypes)}::jsonb, ${row.description},
              'active', now(), now(), 1, now(), ${row.secretFingerprint}, ${row.secretSealed}, ${row.createdByMemberId},
              ${row.createdByMemberId})
            returning ${columns}`),
          (rows) => rows[0]!
        ),

      /** The owner's subscriptions, newest first, disabled ones included. */
      list: (accountId: string): Effect.Effect<ReadonlyArray<Subscription>> =>
        subscriptions(sql`
          select ${columns} from webhook_subscriptions
          where account_id = ${accountId}
          order by created_at desc, id desc`),

      /** The owner's subscription `id`; none when missing or another owner's. */
      findForOwner: (accountId: string, id: string): Effect.Effect<Option.Option<Subscription>> =>
        one(sql`select ${columns} from webhook_subscriptions where id = ${id} and account_id = ${accountId}`),

      /** The owner's subscription `id`, locked until the transaction ends; none when missing or another owner's. */
      lockForOwner: (accountId: string, id: string): Effect.Effect<Option.Option<Subscription>> =>
        one(sql`select ${columns} from webhook_subscriptions where id = ${id} and account_id = ${accountId} for update`),

      /**
       * Makes the new secret current (the next version) and keeps the current one, sealed as it is
       * (its version is the new one's less one), signing for the overlap.
       */
      rotate: (id: string, rotation: Rotation): Effect.Effect<Subscription> =>
        Effect.map(
          subscriptions(sql`
            update webhook_subscriptions set
              previous_secret_sealed = secret_sealed,
              previous_secret_expires_at = now() + make_interval(secs => ${rotation.overlapSeconds}),
              secret_version = secret_version + 1,
              secret_created_at = now(),
              secret_created_by_member_id = ${rotation.byMemberId},
              secret_fingerprint = ${rotation.secretFingerprint},
              secret_sealed = ${rotation.secretSealed},
              updated_at = now()
            where id = ${id}
            returning ${columns}`),
          (rows) => rows[0]!
        ),

      /**
       * Disables the subscription (recording the member who did, null for a key) and drops its
       * pending deliveries (in the caller's transaction).
       */
      disable: (id: string, byMemberId: string | null): Effect.Effect<Subscription> =>
        Effect.map(
          subscriptions(sql`
            update webhook_subscriptions set status = 'disabled', disabled_at = now(), disabled_by_member_id = ${byMemberId},
              updated_at = now()
            where id = ${id}
            returning ${columns}`),
          (rows) => rows[0]!
        ).pipe(
          Effect.tap(() =>
            sql`
              update webhook_deliveries set status = 'dropped', lease_owner = null, lease_expires_at = null, updated_at = now()
              where subscription_id = ${id} and status = 'pending'`.pipe(Effect.orDie)
          )
        )
    } as const
  })
}) {}
