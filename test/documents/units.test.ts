/**
 * Units through v2 previews and publications (specification 3, rules on units; contract section
 * 6), black-box on each database: previews never touch units; a final reserves its unit at
 * admission, commits it on success and releases it when the document cannot be typeset; with no
 * unit left a final is 402 quota_exhausted while previews still run; 20 concurrent finals with one
 * unit left admit exactly one, and exactly one unit is committed.
 */
import t from "tap"
import { createAccount, usageOf } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { awaitJob, newDocument, preview, publish } from "../helpers/v2.ts"
import { slowDocument } from "../helpers/lifecycle.ts"
import { startServer } from "../helpers/server.ts"

await forEachDatabase(t, async (t, database) => {
  // The slow document passes this deadline: it fails with rendering_failed, the document's fault.
  // That test comes last: its worker is then replaced, which on a loaded machine can outlast the
  // 2 s threshold that the other tests expect a render to finish within.
  const server = await startServer(t, { ...database.env, PRESSROOM_RENDER_TIMEOUT_MS: "3000" })

  await t.test("previews never touch units", async (t) => {
    const account = await createAccount(server, { monthlyUnits: 3 })
    const { documentId, revisionId } = await newDocument(server, account.key)
    const before = await usageOf(server, account.accountId)
    for (let i = 0; i < 3; i++) t.equal((await preview(server, account.key, documentId, revisionId)).body.job.status, "succeeded")
    t.same(await usageOf(server, account.accountId), before, "usage unchanged after three previews")
  })

  await t.test("a final reserves at admission, commits on success", async (t) => {
    const account = await createAccount(server, { monthlyUnits: 3 })
    const { documentId, revisionId } = await newDocument(server, account.key)
    const published = await publish(server, account.key, documentId, revisionId)
    t.equal(published.body.job.status, "succeeded")
    t.match(await usageOf(server, account.accountId), { used: 1, reserved: 0, remaining: 2 }, "one unit committed")
  })

  await t.test("no unit left: a final is 402 quota_exhausted, previews still run", async (t) => {
    const account = await createAccount(server, { monthlyUnits: 1 })
    const { documentId, revisionId } = await newDocument(server, account.key)
    t.equal((await publish(server, account.key, documentId, revisionId)).status, 200, "the one unit is used")
    const refused = await publish(server, account.key, documentId, revisionId)
    t.equal(refused.status, 402)
    t.match(refused.body.error, { code: "quota_exhausted", category: "entitlement", httpStatus: 402 })
    const previewed = await preview(server, account.key, documentId, revisionId)
    t.equal(previewed.status, 200, "a preview is never 402")
    t.match(previewed.body.job, { status: "succeeded", entitlement: { units: 0 } })
    t.match(await usageOf(server, account.accountId), { used: 1, reserved: 0, remaining: 0 })
  })

  await t.test("one unit left: 20 concurrent finals admit exactly one, and one unit is committed", async (t) => {
    const account = await createAccount(server, { monthlyUnits: 2 })
    const { documentId, revisionId } = await newDocument(server, account.key)
    t.equal((await publish(server, account.key, documentId, revisionId)).status, 200, "one of two units used")
    const samples: Array<number> = []
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        const usage = await usageOf(server, account.accountId)
        samples.push(usage.used + usage.reserved + usage.remaining)
      }
    })()
    const responses = await Promise.all(Array.from({ length: 20 }, () => publish(server, account.key, documentId, revisionId)))
    sampling = false
    await sampler
    t.same(responses.map((response) => response.status).sort(), [200, ...Array(19).fill(402)], "one 200 and nineteen 402")
    t.ok(
      responses.filter((response) => response.status === 402).every((response) => response.body.error.code === "quota_exhausted"),
      "every refusal is quota_exhausted"
    )
    t.equal(responses.find((response) => response.status === 200)?.body.job.status, "succeeded")
    t.ok(
      samples.every((total) => total === 2),
      `used + reserved + remaining = 2 in all ${samples.length} samples`
    )
    t.match(await usageOf(server, account.accountId), { used: 2, reserved: 0, remaining: 0 }, "exactly one more unit committed")
  })

  await t.test("a final that cannot be typeset: reserved while it runs, released when it fails", async (t) => {
    const account = await createAccount(server, { monthlyUnits: 3 })
    const { documentId, revisionId } = await newDocument(server, account.key, { markdown: slowDocument })
    const admitted = await publish(server, account.key, documentId, revisionId)
    t.equal(admitted.status, 202, "still running when the 2 s threshold ends")
    t.match(await usageOf(server, account.accountId), { used: 0, reserved: 1, remaining: 2 }, "its unit is reserved")
    const ended = await awaitJob(server, account.key, admitted.body.job.id)
    t.equal(ended.body.job.status, "failed")
    t.match(ended.body.job.error, { code: "rendering_failed", category: "render", httpStatus: 422, retryable: false })
    t.equal(ended.body.artifact, null, "no artifact")
    t.equal(ended.body.job.attemptCount, 1, "the document's fault is not retried")
    t.match(await usageOf(server, account.accountId), { used: 0, reserved: 0, remaining: 3 }, "its unit is released")
  })
})
