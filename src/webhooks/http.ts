/**
 * The webhook subscription endpoints, each admitted by `Admission` (scope webhooks.manage, rate
 * class read for the lists and write for the rest, and for a mutation its Idempotency-Key), then a
 * call of `WebhookSubscriptions`. The responses that show a secret (create, rotate) carry
 * `Cache-Control: no-store`, and their idempotency records keep them sealed.
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, type Schema } from "effect"
import { Admission } from "../admission/admission.ts"
import { PressroomApi } from "../http/api.ts"
import { Cursors } from "../shared/cursor.ts"
import { CONTRACT_VERSION } from "../shared/error-responses.ts"
import { DEFAULT_PAGE, pageOf } from "../shared/pagination.ts"
import { WebhookCreated, WebhookDisabled, WebhookRedelivery, WebhookRotated } from "./api.ts"
import type { DeliveryWithAttempts } from "./delivery.ts"
import type { Subscription } from "./subscription.ts"
import { checkSubscription } from "./subscription-request.ts"
import { WebhookSubscriptions, type WithSecret } from "./subscriptions.ts"

const toResource = (subscription: Subscription) => ({
  id: subscription.id,
  endpoint: subscription.endpoint,
  description: subscription.description,
  eventTypes: subscription.eventTypes as ReadonlyArray<"job.succeeded" | "job.failed" | "job.cancelled">,
  status: subscription.status,
  disabledAt: subscription.disabledAt?.toISOString() ?? null,
  currentSecretVersion: subscription.secretVersion,
  currentSecretFingerprint: subscription.secretFingerprint,
  createdAt: subscription.createdAt.toISOString(),
  updatedAt: subscription.updatedAt.toISOString()
})

/** The secret object (specification 2.16): the only place the full secret is shown. */
const toSecret = ({ subscription, signingSecret }: WithSecret) => ({
  version: subscription.secretVersion,
  fingerprint: subscription.secretFingerprint,
  signingSecret,
  createdAt: subscription.secretCreatedAt.toISOString()
})

const toDelivery = ({ delivery, attempts }: DeliveryWithAttempts) => ({
  id: delivery.id,
  eventType: delivery.eventType as "job.succeeded" | "job.failed" | "job.cancelled",
  jobId: delivery.jobId,
  status: delivery.status,
  attemptCount: delivery.attemptCount,
  nextAttemptAt: delivery.status === "pending" ? delivery.nextAttemptAt.toISOString() : null,
  attempts: attempts.map((attempt) => ({ ...attempt, startedAt: attempt.startedAt.toISOString() })),
  createdAt: delivery.createdAt.toISOString(),
  updatedAt: delivery.updatedAt.toISOString()
})

/** A delivery history's cursor is good for that subscription's history only. */
const historyListing = (accountId: string, webhookId: string) => `${accountId}/webhooks/${webhookId}`

/** A response built here rather than by the endpoint, so that `Idempotency` can save it with its headers. */
const json = <A, I>(schema: Schema.Schema<A, I>, body: NoInfer<A>, status: number, headers: Record<string, string> = {}) =>
  HttpServerResponse.schemaJson(schema)(body, { status, headers }).pipe(Effect.orDie)

const noStore = { "cache-control": "no-store" }

export const WebhooksHandlers = HttpApiBuilder.group(PressroomApi, "webhooks", (handlers) =>
  Effect.gen(function* () {
    const admission = yield* Admission
    const subscriptions = yield* WebhookSubscriptions
    const cursors = yield* Cursors
    const sealing = subscriptions.savedResponses

    return handlers
      .handle("create", ({ headers, payload }) =>
        admission.mutate(
          "webhooks.manage",
          "write",
          { operation: "webhooks.create", key: headers["idempotency-key"], pathParams: {}, body: payload, sealing },
          (principal) =>
            checkSubscription(payload).pipe(
              Effect.flatMap((definition) => subscriptions.create(principal, definition)),
              Effect.flatMap((created) =>
                json(
                  WebhookCreated,
                  { contractVersion: CONTRACT_VERSION, secret: toSecret(created), subscription: toResource(created.subscription) },
                  201,
                  noStore
                )
              )
            )
        )
      )
      .handle("list", () =>
        Effect.flatMap(admission.admit("webhooks.manage", "read"), ({ accountId }) =>
          Effect.map(subscriptions.list(accountId), (list) => ({ contractVersion: CONTRACT_VERSION, subscriptions: list.map(toResource) }))
        )
      )
      .handle("rotateSecret", ({ headers, path, payload }) =>
        admission.mutate(
          "webhooks.manage",
          "write",
          {
            operation: "webhooks.rotateSecret",
            key: headers["idempotency-key"],
            pathParams: { webhookId: path.webhookId },
            body: payload ?? {},
            sealing
          },
          (principal) =>
            Effect.flatMap(subscriptions.rotate(principal, path.webhookId), (rotated) =>
              json(
                WebhookRotated,
                { contractVersion: CONTRACT_VERSION, secret: toSecret(rotated), subscriptionId: rotated.subscription.id },
                200,
                noStore
              )
            )
        )
      )
      .handle("disable", ({ headers, path, payload }) =>
        admission.mutate(
          "webhooks.manage",
          "write",
          {
            operation: "webhooks.disable",
            key: headers["idempotency-key"],
            pathParams: { webhookId: path.webhookId },
            body: payload ?? {}
          },
          (principal) =>
            Effect.flatMap(subscriptions.disable(principal, path.webhookId), (subscription) =>
              json(WebhookDisabled, { contractVersion: CONTRACT_VERSION, subscription: toResource(subscription) }, 200)
            )
        )
      )
      .handle("listDeliveries", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const { accountId } = yield* admission.admit("webhooks.manage", "read")
          const listing = historyListing(accountId, path.webhookId)
          const limit = urlParams.limit ?? DEFAULT_PAGE
          const after = urlParams.cursor === undefined ? null : yield* cursors.decode(listing, urlParams.cursor)
          const page = pageOf(yield* subscriptions.deliveries(accountId, path.webhookId, limit + 1, after), limit, (position) =>
            cursors.encode(listing, position)
          )
          return { contractVersion: CONTRACT_VERSION, deliveries: page.items.map(toDelivery), pagination: page.pagination } as const
        })
      )
      .handle("redeliver", ({ headers, path, payload }) =>
        admission.mutate(
          "webhooks.manage",
          "write",
          {
            operation: "webhooks.redeliver",
            key: headers["idempotency-key"],
            pathParams: { webhookId: path.webhookId, deliveryId: path.deliveryId },
            body: payload ?? {}
          },
          ({ accountId }) =>
            Effect.flatMap(subscriptions.redeliver(accountId, path.webhookId, path.deliveryId), (redelivered) =>
              json(WebhookRedelivery, { contractVersion: CONTRACT_VERSION, delivery: toDelivery(redelivered) }, 202)
            )
        )
      )
  })
)
