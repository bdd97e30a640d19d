/**
 * The event outbox (contract section 10): a job's terminal event is written in the same
 * transaction as its terminal state, so a crash can lose neither. Delivery reads it later.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { EventType } from "./event-types.ts"

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
