/**
 * The web channel through the services the REST API uses (contract section 12), in process on
 * each database with a stub renderer: a revision's preview and publication made as the dashboard
 * makes them record `channel: web`; a free account's publication takes a unit of the day's pool
 * (`web_daily`), a REST one the month's; a preview uses none; web jobs send webhook events like
 * REST ones (contract section 10), one-call conversions none; a job a member makes records the member.
 */
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Duration, Effect, Schedule } from "effect"
import t from "tap"
import type { Principal } from "../../src/accounts/principal.ts"
import { Documents } from "../../src/documents/documents.ts"
import { renderRevision } from "../../src/documents/operations.ts"
import { Ledger } from "../../src/entitlements/ledger.ts"
import { Jobs } from "../../src/jobs/jobs.ts"
import { Members } from "../../src/members/members.ts"
import type { Channel } from "../../src/render/provenance.ts"
import { WebhookSubscriptions } from "../../src/webhooks/subscriptions.ts"
import { insertAccountWithKey } from "../helpers/accounts.ts"
import { forEachDatabase, type TestDatabase } from "../helpers/database.ts"
import { runtimeOf, stubPlatform } from "../helpers/platform.ts"
import type { TestContext } from "../helpers/tap.ts"

const config = ConfigProvider.fromMap(new Map([["PRESSROOM_RENDER_WORKERS", "1"]]))

const withPlatform = async (t: TestContext, database: TestDatabase) => runtimeOf(t, (await stubPlatform(database, config)).layer)

t.test("the web channel", (t) =>
  forEachDatabase(t, async (t, database) => {
    const run = await withPlatform(t, database)

    /** A free account with a document of one revision and a webhook subscription for its jobs' success. */
    const owner = await run(
      Effect.gen(function* () {
        const { accountId } = yield* Effect.orDie(insertAccountWithKey({ plan: "free" }))
        const principal: Principal = {
          accountId,
          actor: { kind: "key", keyId: accountId },
          plan: "free",
          scopes: new Set(["documents.render"])
        }
        const created = yield* Effect.flatMap(Documents, (documents) =>
          documents.create(principal, {
            taskId: "web-channel",
            title: "From the dashboard",
            revision: { markdown: "# Hello", parentRevisionId: null, spec: { templateId: "clean", locale: "en" } }
          })
        )
        yield* Effect.flatMap(WebhookSubscriptions, (subscriptions) =>
          subscriptions.create(principal, {
            endpoint: "https://hooks.example.com/pressroom",
            eventTypes: ["job.succeeded"],
            description: null
          })
        )
        return { principal, documentId: created.document.id, revisionId: created.revision.id }
      })
    )
    const render = (purpose: "preview" | "final", channel: "web" | "rest_v2") =>
      run(
        renderRevision(
          owner.principal,
          owner.documentId,
          { revisionId: owner.revisionId, output: { filename: "hello.pdf", format: "pdf" } },
          purpose,
          channel,
          "0".repeat(64),
          Duration.seconds(30)
        )
      )
    /** A one-call conversion, which sends no event. */
    const convert = (channel: Channel) =>
      run(
        Effect.flatMap(Jobs, (jobs) =>
          jobs.admitAndAwait(
            Effect.succeed({
              principal: owner.principal,
              purpose: "final",
              channel,
              spec: { markdown: "# One call", templateId: "clean", locale: "en", options: {}, filename: "document.pdf" },
              requestSha256: "1".repeat(64)
            } as const),
            Duration.seconds(30),
            () => Effect.void
          )
        )
      )
    /** The deliveries written for `jobId`, awaited until the dispatcher has taken its event (a delivery row, or the event marked dispatched). */
    const deliveriesOf = (jobId: string) =>
      run(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const fannedOut = sql<{
            dispatched: boolean
          }>`select dispatched_at is not null as dispatched from outbox_events where job_id = ${jobId}`
          yield* fannedOut.pipe(
            Effect.filterOrFail((rows) => rows.length > 0 && rows.every((row) => row.dispatched)),
            Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 600 })
          )
          return (yield* sql<{ id: string }>`select id from webhook_deliveries where job_id = ${jobId}`).length
        }).pipe(Effect.orDie)
      )

    const preview = await render("preview", "web")
    t.equal(preview.status, "succeeded")
    t.equal(preview.provenance.channel, "web", "a preview from the dashboard records the web channel")
    t.match(preview.entitlement, { units: 0, source: "web_daily" }, "and uses no unit; its snapshot names the pool a publication would use")

    const published = await render("final", "web")
    t.equal(published.status, "succeeded")
    t.equal(published.provenance.channel, "web")
    t.match(published.entitlement, { units: 1, source: "web_daily" }, "a free account's publication from the dashboard: the day's pool")
    const rest = await render("final", "rest_v2")
    t.equal(rest.provenance.channel, "rest_v2")
    t.match(rest.entitlement, { units: 1, source: "free_trial" }, "the same publication by REST: the month's")
    t.match(await run(Effect.flatMap(Ledger, (ledger) => ledger.usage(owner.principal.accountId))), {
      used: 1,
      reserved: 0,
      webDaily: { used: 1, remaining: 2 }
    })

    t.equal(await deliveriesOf(published.id), 1, "a web job's event is delivered")
    t.equal(await deliveriesOf(rest.id), 1, "as a REST job's is")
    t.equal(await deliveriesOf(preview.id), 1, "and a web preview's")
    const converted = await convert("rest_v1")
    const events = await run(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string }>`select id from outbox_events where job_id = ${converted.id}`).pipe(
        Effect.orDie
      )
    )
    t.equal(events.length, 0, "a v1 conversion writes no event (contract section 10), so none is delivered")

    // A member signed in to the dashboard acts through the same services; the job records them (contract section 12).
    const memberId = await run(
      Effect.gen(function* () {
        const members = yield* Members
        const { token } = yield* members.invite(owner.principal.accountId, "ada@example.com")
        return yield* members.acceptInvitation(token, "correct horse battery staple")
      }).pipe(Effect.provide(Members.Default), Effect.orDie)
    )
    const byMember = await run(
      renderRevision(
        { ...owner.principal, actor: { kind: "member", memberId } },
        owner.documentId,
        { revisionId: owner.revisionId, output: { filename: "hello.pdf", format: "pdf" } },
        "preview",
        "web",
        "2".repeat(64),
        Duration.seconds(30)
      )
    )
    const recorded = await run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ id: string; member: string | null }>`select id, member_id as member from jobs where id in (${byMember.id}, ${preview.id})`
      ).pipe(Effect.orDie)
    )
    t.same(
      Object.fromEntries(recorded.map((row) => [row.id, row.member])),
      { [byMember.id]: memberId, [preview.id]: null },
      "a member's job records the member; a key's none"
    )
  })
)
