/**
 * The delivery lease and its fence (contract section 10), at the level of `DeliveryStore` on each
 * database with the real migrations: a v2 job of an owner with a subscription ends (its outbox
 * event written as the job lifecycle writes it) and `fanOut` makes one pending delivery. Sender A
 * claims it under a short lease; while the lease holds, sender B's claim gets nothing; once it has
 * lapsed, B takes the same delivery as attempt 2. A's late record of attempt 1 (here a 410, the
 * most a record can do: end the delivery and disable the subscription) then changes nothing, and
 * B's record is the one that sticks.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import t from "tap"
import type { Principal } from "../../src/accounts/principal.ts"
import { ArtifactRepository } from "../../src/artifacts/repository.ts"
import { Ledger } from "../../src/entitlements/ledger.ts"
import { cancelled } from "../../src/jobs/job-errors.ts"
import { JobStore } from "../../src/jobs/job-store.ts"
import { admittedProvenance } from "../../src/jobs/jobs.ts"
import { JobLifecycle } from "../../src/jobs/lifecycle.ts"
import { DeliveryStore } from "../../src/webhooks/delivery-store.ts"
import { DeliveryHistory } from "../../src/webhooks/history.ts"
import { Outbox } from "../../src/webhooks/outbox.ts"
import { SubscriptionStore } from "../../src/webhooks/store.ts"
import { WebhookSubscriptions } from "../../src/webhooks/subscriptions.ts"
import { insertAccountWithKey } from "../helpers/accounts.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { until } from "../helpers/lifecycle.ts"
import { TestServerKey } from "../helpers/server-key.ts"

/** A's lease: long enough that B's first claim comes while it holds, on a loaded machine too. */
const LEASE_MS = 1500
/** B's lease, which outlasts the test. */
const LONG_LEASE_MS = 60_000
const DISABLE_AFTER_SECONDS = 432_000

const spec = { markdown: "# Leased", templateId: "clean", locale: "en", options: {}, filename: "document.pdf" }

/** The delivery row as a later claim reads it, with the attempts its history shows. */
interface DeliveryRow {
  readonly status: string
  readonly attempt_count: number
  readonly lease_owner: string | null
  readonly attempts: ReadonlyArray<{
    readonly attempt: number
    readonly status_code: number | null
    readonly failure_reason: string | null
  }>
}

t.test("a lapsed delivery lease is taken again, and the first sender's late record changes nothing", (t) =>
  forEachDatabase(t, async (t, database) => {
    const layer = Layer.mergeAll(DeliveryStore.Default, WebhookSubscriptions.Default, JobLifecycle.Default).pipe(
      Layer.provideMerge(
        Layer.mergeAll(
          JobStore.Default,
          Ledger.Default,
          ArtifactRepository.Default,
          Outbox.Default,
          SubscriptionStore.Default,
          DeliveryHistory.Default
        )
      ),
      Layer.provideMerge(Layer.mergeAll(database.layer, TestServerKey))
    )
    const runtime = ManagedRuntime.make(layer)
    t.teardown(() => runtime.dispose())
    const run = <A, E>(effect: Effect.Effect<A, E, Layer.Layer.Success<typeof layer>>) => runtime.runPromise(effect)

    // The rows a real fan-out starts from: an owner, its subscription, then a v2 job that ends.
    const { subscriptionId, jobId } = await run(
      Effect.gen(function* () {
        const { accountId } = yield* Effect.orDie(insertAccountWithKey())
        const principal: Principal = {
          accountId,
          actor: { kind: "key", keyId: accountId },
          plan: "monthly",
          scopes: new Set(["documents.render"])
        }
        const { subscription } = yield* (yield* WebhookSubscriptions).create(principal, {
          endpoint: "https://hooks.example.com/pressroom",
          eventTypes: ["job.cancelled"],
          description: null
        })
        const jobs = yield* JobStore
        const admission = { principal, purpose: "preview", channel: "rest_v2", spec, requestSha256: "0".repeat(64) } as const
        const job = yield* jobs.insert({
          id: crypto.randomUUID(),
          accountId,
          documentId: null,
          revisionId: null,
          purpose: "preview",
          channel: "rest_v2",
          renderSpec: spec,
          requestSha256: "0".repeat(64),
          entitlement: yield* (yield* Ledger).snapshot(accountId, 0),
          provenance: admittedProvenance(admission, "0".repeat(64))
        })
        // Cancelled while queued, as the API's cancel ends a job nobody holds: its outbox event is written with it.
        const lifecycle = yield* JobLifecycle
        const sql = yield* SqlClient.SqlClient
        yield* Effect.orDie(
          sql.withTransaction(
            Effect.gen(function* () {
              const locked = Option.getOrThrow(yield* jobs.lock(job.id))
              yield* lifecycle.endUnclaimed(locked, "cancelled", cancelled())
            })
          )
        )
        return { subscriptionId: subscription.id, jobId: job.id }
      })
    )

    const store = (f: (store: DeliveryStore) => Effect.Effect<any>) => run(Effect.flatMap(DeliveryStore, f))
    const row = () =>
      run(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const rows = yield* Effect.orDie(sql<Omit<DeliveryRow, "attempts"> & { id: string }>`
            select id, status, attempt_count, lease_owner from webhook_deliveries where job_id = ${jobId}`)
          t.equal(rows.length, 1, "one delivery for the job's one subscription")
          const { id, ...delivery } = rows[0]!
          const attempts = yield* Effect.orDie(sql<DeliveryRow["attempts"][number]>`
            select attempt, status_code, failure_reason from webhook_delivery_attempts where delivery_id = ${id} order by attempt`)
          return { ...delivery, attempts }
        })
      )
    const subscriptionState = () =>
      run(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const rows = yield* Effect.orDie(sql<{ status: string; failing_since: Date | null }>`
            select status, failing_since from webhook_subscriptions where id = ${subscriptionId}`)
          return rows[0]!
        })
      )

    const fannedOut = await store((s) => s.fanOut(0))
    t.same(fannedOut, { events: 1, deliveries: 1 }, "the fan-out turns the job's event into one delivery")

    const a = await store((s) => s.claim("sender A", LEASE_MS))
    t.ok(a, "A claims the due delivery")
    t.equal(a.attempt, 1, "as attempt 1")
    t.equal(a.eventType, "job.cancelled", "of the job's event")
    t.equal(a.subscription.id, subscriptionId, "for the subscription")
    t.match(a.data, { job: { id: jobId, status: "cancelled" } }, "with the event's data")
    t.equal(await store((s) => s.claim("sender B", LONG_LEASE_MS)), undefined, "B gets nothing while A's lease holds")
    t.match(await row(), { status: "pending", attempt_count: 1, lease_owner: "sender A" }, "the row names A's lease")

    const b = await until("A's lease to lapse and B to claim", () => store((s) => s.claim("sender B", LONG_LEASE_MS)), 30_000)
    t.equal(b.id, a.id, "B takes the same delivery (the same webhook-id)")
    t.equal(b.attempt, 2, "as attempt 2")
    t.equal(await store((s) => s.claim("sender A", LEASE_MS)), undefined, "and holds it: A cannot claim it back")

    // A's attempt 1 ends late, with the strongest ending there is: a 410.
    await store((s) =>
      s.record(
        { id: a.id, attempt: a.attempt, owner: "sender A", subscriptionId },
        { statusCode: 410, reason: null, durationMs: 20_000, excerpt: "gone" },
        { _tag: "gone" },
        DISABLE_AFTER_SECONDS
      )
    )
    t.same(
      await row(),
      { status: "pending", attempt_count: 2, lease_owner: "sender B", attempts: [] },
      "A's late record leaves the delivery as B's claim left it, and no attempt in its history"
    )
    t.same(await subscriptionState(), { status: "active", failing_since: null }, "and the subscription untouched")

    // B's attempt 2 fails and is to be retried: its record is the one that sticks.
    await store((s) =>
      s.record(
        { id: b.id, attempt: b.attempt, owner: "sender B", subscriptionId },
        { statusCode: 503, reason: null, durationMs: 30, excerpt: "busy" },
        { _tag: "retry", delaySeconds: 3600 },
        DISABLE_AFTER_SECONDS
      )
    )
    t.same(
      await row(),
      { status: "pending", attempt_count: 2, lease_owner: null, attempts: [{ attempt: 2, status_code: 503, failure_reason: null }] },
      "B's record: pending again for the retry, its attempt in the history"
    )
    t.match(await subscriptionState(), { status: "active", failing_since: Date }, "B's failure starts the failing streak")
    t.equal(await store((s) => s.claim("sender A", LEASE_MS)), undefined, "the retry is not due yet: nobody claims it")

    // A record that comes again for attempt 2 after B's own (a replay) is fenced too: the lease is gone.
    await store((s) =>
      s.record(
        { id: b.id, attempt: b.attempt, owner: "sender B", subscriptionId },
        { statusCode: 204, reason: null, durationMs: 10, excerpt: "" },
        { _tag: "delivered" },
        DISABLE_AFTER_SECONDS
      )
    )
    t.match(
      await row(),
      { status: "pending", attempts: [{ attempt: 2, status_code: 503 }] },
      "a second record of the same attempt changes nothing"
    )
  })
)
