/**
 * Webhook subscriptions (specification 2.15 to 2.17, Table B; contract sections 5 and 10): create,
 * list, rotate the secret, disable; and, an extension of the specification, each subscription's
 * delivery history and redelivery. The request is strict (an unknown member is 400), and so are
 * its length and count rules (400); an endpoint that is not an https URL and an unknown event type
 * are content (422), checked by the handler.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../accounts/security.ts"
import { IdempotencyKeyHeader } from "../idempotency/key.ts"
import { CONTRACT_VERSION, withErrors } from "../shared/error-responses.ts"
import { Forbidden, IdempotencyConflict, InvalidStateTransition, NotFound, RateLimited } from "../shared/errors.ts"
import { ListParams, MAX_PAGE, Pagination } from "../shared/pagination.ts"
import { EmptyObject, oneOf, strict } from "../shared/request-values.ts"
import { Timestamp } from "../shared/timestamp.ts"
import { EVENT_TYPES } from "./event-types.ts"

export const MAX_ENDPOINT_LENGTH = 2048

const EventTypes = Schema.Array(oneOf(EVENT_TYPES)).pipe(
  Schema.minItems(1),
  Schema.maxItems(3),
  Schema.filter((types) => new Set(types).size === types.length || "must not repeat an event type", { jsonSchema: { uniqueItems: true } })
)

export const CreateWebhookRequest = Schema.Struct({
  endpoint: Schema.String.pipe(Schema.maxLength(MAX_ENDPOINT_LENGTH)).annotations({
    description: `an https:// URL of at most ${MAX_ENDPOINT_LENGTH} characters`,
    jsonSchema: { format: "uri", maxLength: MAX_ENDPOINT_LENGTH }
  }),
  eventTypes: EventTypes.annotations({ description: "1 to 3 distinct event types" }),
  description: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(160)))).annotations({
    description: "1 to 160 characters, or null (the default)"
  })
}).annotations({ identifier: "CreateWebhookRequest", ...strict })
export type CreateWebhookRequest = typeof CreateWebhookRequest.Type

export const WebhookSubscription = Schema.Struct({
  id: Schema.UUID,
  endpoint: Schema.String,
  description: Schema.NullOr(Schema.String),
  eventTypes: Schema.Array(Schema.Literal(...EVENT_TYPES)),
  status: Schema.Literal("active", "disabled"),
  disabledAt: Schema.NullOr(Timestamp),
  currentSecretVersion: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  currentSecretFingerprint: Schema.String.pipe(Schema.pattern(/^[a-f0-9]{16}$/)).annotations({
    description: "the first 16 hexadecimal characters of the SHA-256 of the current signing secret"
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotations({ identifier: "WebhookSubscription" })

export const WebhookSecret = Schema.Struct({
  version: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  fingerprint: Schema.String.pipe(Schema.pattern(/^[a-f0-9]{16}$/)),
  signingSecret: Schema.String.pipe(Schema.pattern(/^whsec_[A-Za-z0-9+/]{43}=$/)).annotations({
    description: "whsec_ and the base64 of 32 random bytes; shown only in this response"
  }),
  createdAt: Timestamp
}).annotations({ identifier: "WebhookSecret" })

const contractVersion = Schema.Literal(CONTRACT_VERSION)

export const WebhookCreated = Schema.Struct({ contractVersion, secret: WebhookSecret, subscription: WebhookSubscription }).annotations({
  identifier: "WebhookCreated"
})
export const WebhookList = Schema.Struct({ contractVersion, subscriptions: Schema.Array(WebhookSubscription) }).annotations({
  identifier: "WebhookList",
  description: "The owner's subscriptions, newest first, disabled ones included; no secret."
})
export const WebhookRotated = Schema.Struct({ contractVersion, secret: WebhookSecret, subscriptionId: Schema.UUID }).annotations({
  identifier: "WebhookRotated"
})
export const WebhookDisabled = Schema.Struct({ contractVersion, subscription: WebhookSubscription }).annotations({
  identifier: "WebhookDisabled"
})

const WebhookDeliveryAttempt = Schema.Struct({
  attempt: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  startedAt: Timestamp,
  durationMs: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)),
  statusCode: Schema.NullOr(Schema.Int).annotations({ description: "the endpoint's answer; null when there was none" }),
  failureReason: Schema.NullOr(Schema.String).annotations({
    description:
      "why the attempt failed (refused address, timeout, connection error, redirect not followed); null for a 2xx or a plain non-2xx answer"
  }),
  responseExcerpt: Schema.NullOr(Schema.String).annotations({ description: "the first KiB of the endpoint's answer" })
}).annotations({ identifier: "WebhookDeliveryAttempt" })

export const WebhookDelivery = Schema.Struct({
  id: Schema.UUID.annotations({ description: "the delivery body's id and its webhook-id header, the same on every attempt" }),
  eventType: Schema.Literal(...EVENT_TYPES),
  jobId: Schema.UUID,
  status: Schema.Literal("pending", "delivered", "failed", "dropped").annotations({
    description:
      "pending: an attempt is due at nextAttemptAt or under way; delivered: a 2xx; failed: the retry schedule ran out, or a 410; dropped: the subscription was disabled first"
  }),
  attemptCount: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({
    description: "attempts started; one cut short by a crash or under way has no entry in attempts"
  }),
  nextAttemptAt: Schema.NullOr(Timestamp).annotations({ description: "when the next attempt is due; null unless pending" }),
  attempts: Schema.Array(WebhookDeliveryAttempt).annotations({ description: "oldest first" }),
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotations({ identifier: "WebhookDelivery" })

export const WebhookDeliveryList = Schema.Struct({
  contractVersion,
  deliveries: Schema.Array(WebhookDelivery).pipe(Schema.maxItems(MAX_PAGE)),
  pagination: Pagination
}).annotations({ identifier: "WebhookDeliveryList", description: "The subscription's deliveries, newest first." })

export const WebhookRedelivery = Schema.Struct({ contractVersion, delivery: WebhookDelivery }).annotations({
  identifier: "WebhookRedelivery"
})

/** Rotate, disable and redeliver take no body, or `{}`. */
export const NoBody = Schema.NullOr(EmptyObject.annotations({ ...strict })).annotations({ identifier: "NoBody" })

const WebhookPath = Schema.Struct({ webhookId: Schema.UUID })
const DeliveryPath = Schema.Struct({ webhookId: Schema.UUID, deliveryId: Schema.UUID })

const extension =
  "An extension of the specification (Pressroom's own): the delivery history, as Stripe and Svix show it. Kept for PRESSROOM_WEBHOOK_HISTORY_SECONDS (30 days) after a delivery's last change."

const replayNote =
  "A replay of the same Idempotency-Key and body answers the saved response, secret included, with Idempotency-Replayed: true."
const notActive = "409 when the subscription is disabled (invalid_state_transition) or the Idempotency-Key was used for another request."

export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    withErrors(
      HttpApiEndpoint.post("create", "/api/v2/webhooks")
        .setHeaders(IdempotencyKeyHeader)
        .setPayload(CreateWebhookRequest)
        .addSuccess(
          WebhookCreated.annotations({
            description: `Created and active; the full signingSecret is shown here only. Cache-Control: no-store. ${replayNote}`
          }),
          { status: 201 }
        )
        .annotate(
          OpenApi.Summary,
          "Create a webhook subscription (scope webhooks.manage); 422 past PRESSROOM_WEBHOOK_MAX_SUBSCRIPTIONS active ones"
        ),
      "v2",
      [Forbidden, IdempotencyConflict, RateLimited],
      [400, 413, 415, 422]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.get("list", "/api/v2/webhooks")
        .addSuccess(WebhookList)
        .annotate(OpenApi.Summary, "List webhook subscriptions (scope webhooks.manage)"),
      "v2",
      [Forbidden, RateLimited]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("rotateSecret", "/api/v2/webhooks/:webhookId/rotate-secret")
        .setPath(WebhookPath)
        .setHeaders(IdempotencyKeyHeader)
        .setPayload(NoBody)
        .addSuccess(
          WebhookRotated.annotations({
            description: `The new secret, of the next version; the previous one also signs for PRESSROOM_WEBHOOK_ROTATION_OVERLAP_SECONDS (24 h). Cache-Control: no-store. ${replayNote}`
          })
        )
        .annotate(OpenApi.Summary, `Rotate a webhook subscription's signing secret (scope webhooks.manage); ${notActive}`),
      "v2",
      [Forbidden, NotFound, IdempotencyConflict, InvalidStateTransition, RateLimited],
      [400, 413, 415]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("disable", "/api/v2/webhooks/:webhookId/disable")
        .setPath(WebhookPath)
        .setHeaders(IdempotencyKeyHeader)
        .setPayload(NoBody)
        .addSuccess(WebhookDisabled.annotations({ description: `Disabled: disabledAt is set and updatedAt changes. ${replayNote}` }))
        .annotate(OpenApi.Summary, `Disable a webhook subscription (scope webhooks.manage); ${notActive}`),
      "v2",
      [Forbidden, NotFound, IdempotencyConflict, InvalidStateTransition, RateLimited],
      [400, 413, 415]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.get("listDeliveries", "/api/v2/webhooks/:webhookId/deliveries")
        .setPath(WebhookPath)
        .setUrlParams(ListParams)
        .addSuccess(WebhookDeliveryList)
        .annotate(OpenApi.Summary, "List a webhook subscription's deliveries and their attempts (scope webhooks.manage; extension)")
        .annotate(OpenApi.Description, extension),
      "v2",
      [Forbidden, NotFound, RateLimited],
      [400]
    )
  )
  .add(
    withErrors(
      HttpApiEndpoint.post("redeliver", "/api/v2/webhooks/:webhookId/deliveries/:deliveryId/redeliver")
        .setPath(DeliveryPath)
        .setHeaders(IdempotencyKeyHeader)
        .setPayload(NoBody)
        .addSuccess(
          WebhookRedelivery.annotations({
            description:
              "Accepted: the delivery is pending and due now. An ended one gets one more attempt, not a new run of the retry schedule; a pending one keeps its schedule and is brought forward."
          }),
          { status: 202 }
        )
        .annotate(OpenApi.Summary, `Send a webhook delivery again (scope webhooks.manage; extension); ${notActive}`)
        .annotate(OpenApi.Description, extension),
      "v2",
      [Forbidden, NotFound, IdempotencyConflict, InvalidStateTransition, RateLimited],
      [400, 413, 415]
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Webhooks") {}
