/**
 * A webhook delivery as its history shows it (an extension of the specification): one event for
 * one subscription, its state, and every attempt made. `DeliveryRow` and `AttemptRow` read them
 * from `webhook_deliveries` and `webhook_delivery_attempts` (migrations 0008 and 0009).
 */
import { Schema } from "effect"
import { column } from "../shared/rows.ts"

export const DeliveryStatus = Schema.Literal("pending", "delivered", "failed", "dropped")

export const Attempt = Schema.Struct({
  attempt: Schema.Int,
  startedAt: Schema.DateFromSelf,
  durationMs: Schema.Int,
  statusCode: Schema.NullOr(Schema.Int),
  failureReason: Schema.NullOr(Schema.String),
  responseExcerpt: Schema.NullOr(Schema.String)
})
export type Attempt = typeof Attempt.Type

export const AttemptRow = Schema.Struct({
  ...Attempt.fields,
  deliveryId: column(Schema.UUID, "delivery_id"),
  startedAt: column(Attempt.fields.startedAt, "started_at"),
  durationMs: column(Attempt.fields.durationMs, "duration_ms"),
  statusCode: column(Attempt.fields.statusCode, "status_code"),
  failureReason: column(Attempt.fields.failureReason, "failure_reason"),
  responseExcerpt: column(Attempt.fields.responseExcerpt, "response_excerpt")
})

export const Delivery = Schema.Struct({
  id: Schema.UUID,
  eventType: Schema.String,
  jobId: Schema.UUID,
  status: DeliveryStatus,
  attemptCount: Schema.Int,
  nextAttemptAt: Schema.DateFromSelf,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})

const { fields } = Delivery

export const DeliveryRow = Schema.Struct({
  ...fields,
  eventType: column(fields.eventType, "event_type"),
  jobId: column(fields.jobId, "job_id"),
  attemptCount: column(fields.attemptCount, "attempt_count"),
  nextAttemptAt: column(fields.nextAttemptAt, "next_attempt_at"),
  createdAt: column(fields.createdAt, "created_at"),
  updatedAt: column(fields.updatedAt, "updated_at"),
  /** `created_at::text`, the delivery's place in the history's order (src/shared/cursor.ts). */
  positionAt: column(Schema.String, "position_at")
})

/** A delivery with its attempts, oldest first. */
export interface DeliveryWithAttempts {
  readonly delivery: typeof Delivery.Type
  readonly attempts: ReadonlyArray<Attempt>
  readonly position: { readonly createdAt: string; readonly id: string }
}
