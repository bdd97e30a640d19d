/**
 * The sweep: a final artifact past its lifetime becomes `expired` and its PDF is removed from
 * storage; an idempotency record past its lifetime is deleted.
 */
import t from "tap"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { convert, createAccount, requestJson } from "./helpers/api.ts"
import { storedPdfs } from "./helpers/artifact-bytes.ts"
import { forEachDatabase, runWith } from "./helpers/database.ts"
import { startServer } from "./helpers/server.ts"

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, {
    ...database.env,
    PRESSROOM_FINAL_TTL_SECONDS: "1",
    PRESSROOM_IDEMPOTENCY_TTL_SECONDS: "1",
    PRESSROOM_SWEEP_INTERVAL_MS: "200"
  })
  const account = await createAccount(server)
  const pdfs = () => storedPdfs(server, database)

  t.equal((await convert(server, account.key, { markdown: "Short-lived." })).status, 200)
  const created = await requestJson(server, "POST", "/api/v2/templates", {
    token: account.key,
    headers: { "idempotency-key": `sweep-${randomUUID()}` },
    body: { name: "Short-lived", baseTemplateId: "clean", options: {} }
  })
  t.equal(created.status, 201)
  const recordExpiresAt = Date.now() + 1_000

  const deadline = Date.now() + 15_000
  while ((await pdfs()).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  t.same(await pdfs(), [], "the expired PDF was removed from storage")
  // The record expires a second after it was made; give the sweep (every 200 ms) a second more,
  // since on a loaded machine with two cores one pass may take a while.
  await new Promise((resolve) => setTimeout(resolve, Math.max(500, recordExpiresAt + 1_000 - Date.now())))
  await server.stop()

  const rows = await runWith(
    database,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const artifacts = yield* sql<{ status: string }>`select status from artifacts`
      const records = yield* sql<{ n: number }>`select count(*)::int as n from idempotency_records`
      return { artifacts: artifacts.map((row) => row.status), records: records[0]!.n }
    })
  )
  t.same(rows, { artifacts: ["expired"], records: 0 }, "the artifact row is expired and the idempotency record is gone")
})
