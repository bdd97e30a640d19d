/**
 * The event outbox (contract section 10): a job's terminal event is written in the same
 * transaction as its terminal state, so a crash can lose neither. Delivery reads it later.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"

/** The event types (specification section 6), which a subscription lists 1 to 3 of. */
export const EVENT_TYPES = ["job.succeeded", "job.failed", "job.cancelled"] as const
export type EventType = (typeof EVENT_TYPES)[number]

export class Outbox extends Effect.Service<Outbox>()("pressroom/Outbox", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      /** Must run inside the transaction that ends the job. */
      append: (event: { accountId: string; jobId: string; type: EventType; data: object }) =>
        sql`
          insert into outbox_events (id, account_id, job_id, type, payload)
          values (${randomUUID()}, ${event.accountId}, ${event.jobId}, ${event.type}, ${JSON.stringify(event.data)}::jsonb)`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    } as const
  })
}) {}
