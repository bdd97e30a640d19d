/**
 * Webhooks (contract section 12): the account's subscriptions; a new one, whose signing secret
 * this one response shows; rotation (the new secret shown once) and disabling; a subscription's
 * deliveries with every attempt, and redelivery. Made through `WebhookSubscriptions` as the API
 * makes them, with the API's request checks. What an endpoint answered is shown as text.
 */
import { Effect } from "effect"
import { Admission } from "../../admission/admission.ts"
import { NotFound, publishingError } from "../../shared/errors.ts"
import type { DeliveryWithAttempts } from "../../webhooks/delivery.ts"
import { EVENT_TYPES } from "../../webhooks/event-types.ts"
import type { Subscription } from "../../webhooks/subscription.ts"
import { checkSubscription } from "../../webhooks/subscription-request.ts"
import { WebhookSubscriptions } from "../../webhooks/subscriptions.ts"
import { csrfField } from "../csrf.ts"
import { memberForm } from "../forms.ts"
import { type Html, html } from "../html.ts"
import { document } from "../layout.ts"
import { CurrentMember, type SignedIn } from "../member-context.ts"
import { withRefusalPages } from "../page-errors.ts"
import { htmlResponse, redirect } from "../responses.ts"
import { showTime } from "../time.ts"

/** The deliveries a subscription's page shows, newest first. */
const DELIVERIES_SHOWN = 50

const webhookPath = (id: string) => `/app/webhooks/${id}`

const postButton = (member: SignedIn, action: string, label: string, describedBy: string, style = "secondary") =>
  html`<form method="post" action="${action}">
    ${csrfField(member.session.csrfToken)}
    <button type="submit" class="button ${style}" aria-describedby="${describedBy}">${label}</button>
  </form>`

const subscriptionRow = (member: SignedIn, subscription: Subscription) =>
  html`<tr>
    <td data-label="Endpoint" id="hook-${subscription.id}"><a href="${webhookPath(subscription.id)}">${subscription.endpoint}</a></td>
    <td data-label="Description">${subscription.description ?? ""}</td>
    <td data-label="Events">${subscription.eventTypes.map((type) => html`<span class="tag">${type}</span>`)}</td>
    <td data-label="Status">${subscription.status}</td>
    <td data-label="Secret">v${subscription.secretVersion} <code>${subscription.secretFingerprint}</code></td>
    <td data-label="Created">${showTime(subscription.createdAt)}</td>
    <td data-label="Actions" class="row-actions">
      <a href="${webhookPath(subscription.id)}" aria-describedby="hook-${subscription.id}">Deliveries</a>
      ${
        subscription.status === "active"
          ? html`${postButton(member, `${webhookPath(subscription.id)}/rotate`, "Rotate secret", `hook-${subscription.id}`)}
            ${postButton(member, `${webhookPath(subscription.id)}/disable`, "Disable", `hook-${subscription.id}`, "danger")}`
          : ""
      }
    </td>
  </tr>`

/** The secret of a subscription just made or rotated, shown this once. */
const secretNotice = (what: string, secret: string) =>
  html`<div class="notice" role="status">
    <p><strong>${what}</strong> Copy its signing secret now: it is shown only this once.</p>
    <label for="new-secret">Signing secret</label>
    <div class="secret">
      <input id="new-secret" type="text" readonly value="${secret}" data-select-on-focus>
      <button type="button" class="button" data-copy="new-secret" data-copy-status="copy-status">Copy</button>
    </div>
    <p class="hint" id="copy-status" aria-live="polite"></p>
  </div>`

const webhooksPage = (member: SignedIn, subscriptions: ReadonlyArray<Subscription>, top: Html | "" = "", status = 200) =>
  htmlResponse(
    document({
      title: "Webhooks",
      member,
      path: "/app/webhooks",
      main: html`<h1>Webhooks</h1>
        ${top}
        <section aria-labelledby="list">
          <h2 id="list">Subscriptions</h2>
          ${
            subscriptions.length === 0
              ? html`<p>No subscriptions yet.</p>`
              : html`<div class="table-box"><table class="stack-table">
                  <thead><tr><th>Endpoint</th><th>Description</th><th>Events</th><th>Status</th><th>Secret</th><th>Created</th><th>Actions</th></tr></thead>
                  <tbody>${subscriptions.map((subscription) => subscriptionRow(member, subscription))}</tbody>
                </table></div>`
          }
        </section>
        <section aria-labelledby="create">
          <h2 id="create">Add a subscription</h2>
          <form method="post" action="/app/webhooks" class="card">
            ${csrfField(member.session.csrfToken)}
            <label for="endpoint">Endpoint</label>
            <input id="endpoint" name="endpoint" type="url" required placeholder="https://example.com/hooks/pressroom" aria-describedby="endpoint-hint">
            <p class="hint" id="endpoint-hint">An https URL; events are signed (Standard Webhooks).</p>
            <label for="description">Description</label>
            <input id="description" name="description" type="text" maxlength="200">
            <fieldset>
              <legend>Events</legend>
              ${EVENT_TYPES.map((type) => html`<label><input type="checkbox" name="eventTypes" value="${type}" checked> ${type}</label>`)}
            </fieldset>
            <div class="actions"><button type="submit" class="button">Add subscription</button></div>
          </form>
        </section>`
    }),
    status
  )

const withList = (member: SignedIn, top: Html | "" = "", status = 200) =>
  Effect.map(
    Effect.flatMap(WebhookSubscriptions, (subscriptions) => subscriptions.list(member.principal.accountId)),
    (list) => webhooksPage(member, list, top, status)
  )

/** The admission of the API's webhook endpoints: the scope (a member holds every one) and the rate class. */
const admitted = (rateClass: "read" | "write") => Effect.flatMap(Admission, (admission) => admission.admit("webhooks.manage", rateClass))

export const showWebhooks = withRefusalPages(
  Effect.gen(function* () {
    yield* admitted("read")
    return yield* withList(yield* CurrentMember)
  })
)

export const createWebhook = withRefusalPages(
  Effect.gen(function* () {
    const member = yield* CurrentMember
    const form = yield* memberForm
    yield* admitted("write")
    const description = (form.get("description") ?? "").trim()
    const created = yield* Effect.either(
      Effect.flatMap(
        checkSubscription({
          endpoint: (form.get("endpoint") ?? "").trim(),
          eventTypes: form.getAll("eventTypes"),
          description: description || null
        }),
        (definition) => Effect.flatMap(WebhookSubscriptions, (subscriptions) => subscriptions.create(member.principal, definition))
      )
    )
    if (created._tag === "Left") {
      const message = publishingError(created.left).message
      return yield* withList(member, html`<p class="error" role="alert">The subscription was not added: ${message}.</p>`, 422)
    }
    return yield* withList(
      member,
      secretNotice(`Subscription to ${created.right.subscription.endpoint} added.`, created.right.signingSecret)
    )
  })
)

export const rotateWebhook = (subscriptionId: string) =>
  withRefusalPages(
    Effect.gen(function* () {
      const member = yield* CurrentMember
      yield* memberForm
      yield* admitted("write")
      const rotated = yield* Effect.flatMap(WebhookSubscriptions, (subscriptions) => subscriptions.rotate(member.principal, subscriptionId))
      return yield* withList(
        member,
        secretNotice(
          `A new secret for ${rotated.subscription.endpoint}; the previous one still signs for a while (the rotation's overlap).`,
          rotated.signingSecret
        )
      )
    })
  )

export const disableWebhook = (subscriptionId: string) =>
  withRefusalPages(
    Effect.gen(function* () {
      const member = yield* CurrentMember
      yield* memberForm
      yield* admitted("write")
      yield* Effect.flatMap(WebhookSubscriptions, (subscriptions) => subscriptions.disable(member.principal, subscriptionId))
      return redirect("/app/webhooks")
    })
  )

const attemptRows = (item: DeliveryWithAttempts) =>
  item.attempts.length === 0
    ? html`<p class="hint">No attempt yet${item.delivery.status === "pending" ? html`; the next is due ${showTime(item.delivery.nextAttemptAt)}` : ""}.</p>`
    : html`<div class="table-box"><table class="stack-table">
        <caption>Attempts</caption>
        <thead><tr><th>#</th><th>Started</th><th>Duration</th><th>Status code</th><th>Failure</th><th>Answer</th></tr></thead>
        <tbody>${item.attempts.map(
          (attempt) => html`<tr>
            <td data-label="#">${attempt.attempt}</td>
            <td data-label="Started">${showTime(attempt.startedAt)}</td>
            <td data-label="Duration">${attempt.durationMs} ms</td>
            <td data-label="Status code">${attempt.statusCode ?? "—"}</td>
            <td data-label="Failure">${attempt.failureReason ?? ""}</td>
            <td data-label="Answer"><code class="excerpt">${attempt.responseExcerpt ?? ""}</code></td>
          </tr>`
        )}</tbody>
      </table></div>`

const deliveryItem = (member: SignedIn, subscription: Subscription, item: DeliveryWithAttempts) =>
  html`<li class="card delivery" id="delivery-${item.delivery.id}">
    <h3>${item.delivery.eventType} <span class="tag status-${item.delivery.status}">${item.delivery.status}</span></h3>
    <p class="hint">Job <code>${item.delivery.jobId}</code> · created ${showTime(item.delivery.createdAt)} · ${item.delivery.attemptCount} attempt(s)</p>
    ${attemptRows(item)}
    ${
      subscription.status === "active"
        ? postButton(
            member,
            `${webhookPath(subscription.id)}/deliveries/${item.delivery.id}/redeliver`,
            "Redeliver",
            `delivery-${item.delivery.id}`
          )
        : ""
    }
  </li>`

export const showDeliveries = (subscriptionId: string) =>
  withRefusalPages(
    Effect.gen(function* () {
      const member = yield* CurrentMember
      yield* admitted("read")
      const subscriptions = yield* WebhookSubscriptions
      const subscription = (yield* subscriptions.list(member.principal.accountId)).find((each) => each.id === subscriptionId)
      if (!subscription) return yield* Effect.fail(new NotFound({ resource: "webhook subscription" }))
      const deliveries = yield* subscriptions.deliveries(member.principal.accountId, subscriptionId, DELIVERIES_SHOWN, null)
      return htmlResponse(
        document({
          title: "Webhook deliveries",
          member,
          path: "/app/webhooks",
          main: html`<h1>Deliveries to ${subscription.endpoint}</h1>
            <p class="hint">${subscription.status} · ${subscription.eventTypes.join(", ")} · newest first, at most ${DELIVERIES_SHOWN}.
              <a href="${webhookPath(subscriptionId)}">Refresh</a> · <a href="/app/webhooks">All subscriptions</a></p>
            ${
              deliveries.length === 0
                ? html`<p>No deliveries yet: one is made for each event of the account's jobs once they end.</p>`
                : html`<ol class="deliveries">${deliveries.map((item) => deliveryItem(member, subscription, item))}</ol>`
            }`
        })
      )
    })
  )

export const redeliverWebhook = (subscriptionId: string, deliveryId: string) =>
  withRefusalPages(
    Effect.gen(function* () {
      const member = yield* CurrentMember
      yield* memberForm
      yield* admitted("write")
      yield* Effect.flatMap(WebhookSubscriptions, (subscriptions) =>
        subscriptions.redeliver(member.principal.accountId, subscriptionId, deliveryId)
      )
      return redirect(`${webhookPath(subscriptionId)}#delivery-${deliveryId}`)
    })
  )
