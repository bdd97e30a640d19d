/**
 * A webhook subscription (specification 2.15) as the domain holds it: what the API shows, its
 * owner, and its secrets sealed (src/webhooks/secrets.ts). `SubscriptionRow` reads it from a row
 * of `webhook_subscriptions`.
 */
import { Schema } from "effect"
import { column } from "../shared/rows.ts"

export const SubscriptionStatus = Schema.Literal("active", "disabled")
export type SubscriptionStatus = typeof SubscriptionStatus.Type

export const Subscription = Schema.Struct({
  id: Schema.UUID,
  accountId: Schema.UUID,
  endpoint: Schema.String,
  eventTypes: Schema.Array(Schema.String),
  description: Schema.NullOr(Schema.String),
  status: SubscriptionStatus,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  disabledAt: Schema.NullOr(Schema.DateFromSelf),
  secretVersion: Schema.Int,
  secretCreatedAt: Schema.DateFromSelf,
  secretFingerprint: Schema.String,
  secretSealed: Schema.String,
  previousSecretSealed: Schema.NullOr(Schema.String),
  previousSecretExpiresAt: Schema.NullOr(Schema.DateFromSelf)
})
export type Subscription = typeof Subscription.Type

const { fields } = Subscription

export const SubscriptionRow = Schema.Struct({
  ...fields,
  accountId: column(fields.accountId, "account_id"),
  eventTypes: column(fields.eventTypes, "event_types"),
  createdAt: column(fields.createdAt, "created_at"),
  updatedAt: column(fields.updatedAt, "updated_at"),
  disabledAt: column(fields.disabledAt, "disabled_at"),
  secretVersion: column(fields.secretVersion, "secret_version"),
  secretCreatedAt: column(fields.secretCreatedAt, "secret_created_at"),
  secretFingerprint: column(fields.secretFingerprint, "secret_fingerprint"),
  secretSealed: column(fields.secretSealed, "secret_sealed"),
  previousSecretSealed: column(fields.previousSecretSealed, "previous_secret_sealed"),
  previousSecretExpiresAt: column(fields.previousSecretExpiresAt, "previous_secret_expires_at")
})

/** What a client asks to subscribe, once checked (src/webhooks/subscription-request.ts). */
export interface SubscriptionDefinition {
  readonly endpoint: string
  readonly eventTypes: ReadonlyArray<string>
  readonly description: string | null
}
