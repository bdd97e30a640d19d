/**
 * Rate limits over HTTP (contract section 7), against real servers with a write bucket of 3 per
 * minute: the fourth write is a 429 with Retry-After and details.retryAfterSeconds, and it creates
 * nothing and saves no idempotency record; reads draw from their own bucket; a request refused for
 * its key's scope (403) spends no token. On PostgreSQL, two
 * server processes draw from one bucket, and one Idempotency-Key sent to both executes once.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import t from "tap"
import { insertAccountWithKey, insertKey } from "../helpers/accounts.ts"
import { requestJson } from "../helpers/api.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"
import { type RunningServer, startServer } from "../helpers/server.ts"

const WRITES_PER_MINUTE = 3

const body = (name: string) => ({ name, baseTemplateId: "clean", options: {} })

const create = (server: RunningServer, token: string, key: string, name: string) =>
  requestJson(server, "POST", "/api/v2/templates", { token, body: body(name), headers: { "idempotency-key": key } })

t.test("rate limits over HTTP", (t) =>
  forEachDatabase(t, async (t, database) => {
    const accounts = await runWith(
      database,
      Effect.orDie(
        Effect.gen(function* () {
          const scoped = yield* insertAccountWithKey()
          return {
            limited: yield* insertAccountWithKey(),
            shared: yield* insertAccountWithKey(),
            crossProcess: yield* insertAccountWithKey(),
            scoped,
            readOnlyKey: yield* insertKey(scoped.accountId, ["documents.read"])
          }
        })
      )
    )
    const env = { ...database.env, PRESSROOM_RATE_LIMIT_WRITE_PER_MINUTE: String(WRITES_PER_MINUTE) }
    const server = await startServer(t, env)
    const { key } = accounts.limited

    await t.test("the write after the capacity is a 429 that says when to retry", async (t) => {
      for (let i = 1; i <= WRITES_PER_MINUTE; i++)
        t.equal((await create(server, key, `write-key-${i}`, `write ${i}`)).status, 201, `write ${i}`)
      const limited = await create(server, key, "limited-key-1", "limited")
      t.equal(limited.status, 429)
      t.equal(limited.body.contractVersion, "publishing.lifecycle.v1")
      t.equal(limited.body.error.code, "rate_limited")
      t.equal(limited.body.error.category, "entitlement")
      t.equal(limited.body.error.retryable, true)
      const retryAfter = limited.body.error.details.retryAfterSeconds
      t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60 / WRITES_PER_MINUTE, `retryAfterSeconds ${retryAfter}`)
      t.equal(limited.headers.get("retry-after"), String(retryAfter), "Retry-After matches")
      t.equal(limited.body.error.details.correlationId, limited.headers.get("x-correlation-id"))
      t.equal(limited.headers.get("idempotency-replayed"), null)

      const read = await requestJson(server, "GET", "/api/v2/templates", { token: key })
      t.equal(read.status, 200, "reads have a bucket of their own")
      t.notOk(
        read.body.templates.some((x: { name: string }) => x.name === "limited"),
        "the limited request created nothing"
      )
    })

    await t.test("a request refused for its key's scope spends no token of the owner's bucket", async (t) => {
      for (let i = 1; i <= WRITES_PER_MINUTE + 2; i++) {
        t.equal((await create(server, accounts.readOnlyKey, `forbidden-key-${i}`, `forbidden ${i}`)).status, 403, `forbidden ${i}`)
      }
      for (let i = 1; i <= WRITES_PER_MINUTE; i++) {
        t.equal(
          (await create(server, accounts.scoped.key, `scoped-key-${i}`, `scoped ${i}`)).status,
          201,
          `the owner's write ${i} still has its token`
        )
      }
    })

    const servers = [server]
    if (database.kind === "pglite") {
      t.comment("PGlite serves one process: the checks of two server processes on one database run on PostgreSQL only")
    } else {
      const second = await startServer(t, env)
      servers.push(second)

      await t.test("two server processes draw from one bucket", async (t) => {
        const token = accounts.shared.key
        const statuses = []
        for (const [i, target] of [server, second, server, second].entries())
          statuses.push((await create(target, token, `shared-key-${i}`, `shared ${i}`)).status)
        t.same(statuses, [201, 201, 201, 429], "three writes in all, whichever process serves them")
      })

      await t.test("one Idempotency-Key sent to two processes at once executes once", async (t) => {
        const token = accounts.crossProcess.key
        const responses = await Promise.all([server, second, server].map((target) => create(target, token, "cross-process-key", "once")))
        t.same(
          responses.map((r) => r.status),
          [201, 201, 201]
        )
        t.equal(new Set(responses.map((r) => JSON.stringify(r.body))).size, 1, "one body")
        t.equal(responses.filter((r) => r.headers.get("idempotency-replayed") === "true").length, 2, "two replays")
        const listed = await requestJson(second, "GET", "/api/v2/templates", { token })
        t.equal(listed.body.templates.length, 1, "one template")
      })
    }

    await Promise.all(servers.map((s) => s.stop()))
    const saved = await runWith(
      database,
      Effect.orDie(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const [templates] = yield* sql<{ n: number }>`
        select count(*)::int as n from custom_templates where account_id = ${accounts.limited.accountId} and name = 'limited'`
          const [records] = yield* sql<{ n: number }>`
        select count(*)::int as n from idempotency_records where account_id = ${accounts.limited.accountId} and key = 'limited-key-1'`
          return { templates: templates!.n, records: records!.n }
        })
      )
    )
    t.same(saved, { templates: 0, records: 0 }, "the 429 saved no template and no idempotency record")
  })
)
