/**
 * A v1 conversion sent again without an Idempotency-Key (a client's retry after a lost answer), on
 * each database: the second is not typeset; it is answered with the identical PDF, charged a unit
 * as any conversion, and /metrics counts the reuse and no render.
 */
import t from "tap"
import { convert, createAccount, usageOf } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { PNG_1x1 } from "../helpers/render.ts"
import { startServer } from "../helpers/server.ts"

const metrics = async (server: { url: string }) => {
  const text = await (await fetch(`${server.url}/metrics`)).text()
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0)
  return {
    reuses: value(/^pressroom_render_reuses_total (\d+)$/m),
    renders: value(/^pressroom_render_duration_seconds_count\{outcome="succeeded"\} (\d+)$/m)
  }
}

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, database.env)

  await t.test("the same conversion twice: the second reuses the first's bytes and is charged", async (t) => {
    const account = await createAccount(server, { monthlyUnits: 5 })
    // An embedded image: the reuse carries the asset set the first render found.
    const body = {
      markdown: `# Retried\n\nSent twice.\n\n![dot](data:image/png;base64,${PNG_1x1})\n`,
      templateId: "executive",
      locale: "fr",
      filename: "retried.pdf"
    }
    const first = await convert(server, account.key, body)
    t.equal(first.status, 200)
    const before = await metrics(server)
    const second = await convert(server, account.key, body)
    t.equal(second.status, 200)
    t.same(second.pdf, first.pdf, "the identical PDF")
    t.equal(second.headers.get("content-disposition"), 'attachment; filename="retried.pdf"')
    const after = await metrics(server)
    t.equal(after.reuses, before.reuses + 1, "/metrics counts one reuse")
    t.equal(after.renders, before.renders, "and no render")
    t.equal((await usageOf(server, account.accountId)).used, 2, "each conversion is charged a unit")
  })
})
