/**
 * `WebhookSubscriptions`: creation, listing, secret rotation and disabling of an owner's
 * subscriptions (specification 2.15 to 2.17 and section 3; contract section 10). A new secret is
 * returned to the caller once and kept only sealed; rotating or disabling a disabled subscription
 * is a 409 `invalid_state_transition`, since the one transition the specification shows is
 * active → disabled. Also each subscription's delivery history, and redelivery while it is active
 * (an extension of the specification). Creation, rotation and disabling take the principal and
 * record the member behind it (null for a key, contract section 12).
 */
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { memberOf, type Principal } from "../accounts/principal.ts"
import type { ResponseSealing } from "../idempotency/idempotency.ts"
import type { CursorPosition } from "../shared/pagination.ts"
import { InvalidRequest, InvalidStateTransition, NotFound } from "../shared/errors.ts"
import { KEY_LABELS, ServerKey } from "../shared/server-key.ts"
import { subscriptionConfig } from "./config.ts"
import type { DeliveryWithAttempts } from "./delivery.ts"
import { DeliveryHistory } from "./history.ts"
import { fingerprintOf, newSigningSecret, open, seal, secretContext } from "./secrets.ts"
import { SubscriptionStore } from "./store.ts"
import type { Subscription, SubscriptionDefinition } from "./subscription.ts"

/** A subscription with the secret just made for it, which the response shows once. */
export interface WithSecret {
  readonly subscription: Subscription
  readonly signingSecret: string
}

const SAVED_RESPONSE_CONTEXT = "webhook-subscription:saved-response"

const notFound = new NotFound({ resource: "webhook subscription" })
const deliveryNotFound = new NotFound({ resource: "webhook delivery" })

export class WebhookSubscriptions extends Effect.Service<WebhookSubscriptions>()("pressroom/WebhookSubscriptions", {
  effect: Effect.gen(function* () {
    const store = yield* SubscriptionStore
    const history = yield* DeliveryHistory
    const key = (yield* ServerKey).deriveKey(KEY_LABELS.webhookSecrets)
    const config = yield* subscriptionConfig

    /** The owner's active subscription `id`, locked for the rest of the transaction. */
    const lockActive = (accountId: string, id: string) =>
      Effect.gen(function* () {
        const subscription = yield* Effect.flatMap(
          store.lockForOwner(accountId, id),
          Option.match({ onNone: () => Effect.fail(notFound), onSome: Effect.succeed })
        )
        if (subscription.status !== "active") {
          return yield* Effect.fail(new InvalidStateTransition({ currentState: subscription.status, expectedStates: ["active"] }))
        }
        return subscription
      })

    return {
      /**
       * How an idempotency record keeps a response that shows a secret (create, rotate): sealed
       * like the secrets themselves, so a replay can show it again and a reader of the database
       * cannot.
       */
      savedResponses: {
        seal: (body: string) => seal(key, body, SAVED_RESPONSE_CONTEXT),
        open: (sealed: string) => open(key, sealed, SAVED_RESPONSE_CONTEXT)
      } satisfies ResponseSealing,

      /** Refused with 422 when the owner already has `PRESSROOM_WEBHOOK_MAX_SUBSCRIPTIONS` active ones. */
      create: (principal: Principal, definition: SubscriptionDefinition): Effect.Effect<WithSecret, InvalidRequest> =>
        store.transaction(
          Effect.gen(function* () {
            const { accountId } = principal
            const active = yield* store.lockAndCountActive(accountId)
            if (active >= config.maxSubscriptions) {
              return yield* Effect.fail(
                InvalidRequest.unprocessable(
                  `the account already has ${active} active webhook subscriptions, the most allowed (${config.maxSubscriptions}); disable one first`
                )
              )
            }
            const id = randomUUID()
            const signingSecret = newSigningSecret()
            const subscription = yield* store.insert({
              id,
              accountId,
              ...definition,
              secretFingerprint: fingerprintOf(signingSecret),
              secretSealed: seal(key, signingSecret, secretContext(id, 1)),
              createdByMemberId: memberOf(principal)
            })
            return { subscription, signingSecret }
          })
        ),

      list: (accountId: string) => store.list(accountId),

      /** A new secret of the next version; the current one keeps signing for the rotation overlap. */
      rotate: (principal: Principal, id: string): Effect.Effect<WithSecret, NotFound | InvalidStateTransition> =>
        store.transaction(
          Effect.gen(function* () {
            const current = yield* lockActive(principal.accountId, id)
            const signingSecret = newSigningSecret()
            const subscription = yield* store.rotate(id, {
              secretFingerprint: fingerprintOf(signingSecret),
              secretSealed: seal(key, signingSecret, secretContext(id, current.secretVersion + 1)),
              overlapSeconds: config.rotationOverlapSeconds,
              byMemberId: memberOf(principal)
            })
            return { subscription, signingSecret }
          })
        ),

      disable: (principal: Principal, id: string): Effect.Effect<Subscription, NotFound | InvalidStateTransition> =>
        store.transaction(Effect.flatMap(lockActive(principal.accountId, id), () => store.disable(id, memberOf(principal)))),

      /** A page of the subscription's deliveries, newest first; a disabled subscription's too. */
      deliveries: (
        accountId: string,
        id: string,
        limit: number,
        after: CursorPosition | null
      ): Effect.Effect<ReadonlyArray<DeliveryWithAttempts>, NotFound> =>
        Effect.flatMap(store.findForOwner(accountId, id), (subscription) =>
          Option.isSome(subscription) ? history.page(id, limit, after) : Effect.fail(notFound)
        ),

      /** Makes a delivery of an active subscription due now (`DeliveryHistory.redeliver`). */
      redeliver: (
        accountId: string,
        id: string,
        deliveryId: string
      ): Effect.Effect<DeliveryWithAttempts, NotFound | InvalidStateTransition> =>
        store.transaction(
          Effect.zipRight(
            lockActive(accountId, id),
            Effect.flatMap(
              history.redeliver(id, deliveryId),
              Option.match({ onNone: () => Effect.fail(deliveryNotFound), onSome: Effect.succeed })
            )
          )
        )
    } as const
  })
}) {}
