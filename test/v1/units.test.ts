/**
 * Units and failures through v1 convert, on each database: with one unit left, 20 concurrent
 * conversions admit exactly one; used + reserved + remaining stays equal to the entitlement; a
 * document that cannot be typeset, a storage fault and a rate-limited request charge nothing.
 */
import t from "tap"
import { convert, createAccount, usageOf } from "../helpers/api.ts"
import { breakArtifactWrites } from "../helpers/artifact-bytes.ts"
import { forEachDatabase, freshDatabase } from "../helpers/database.ts"
import { slowDocument, until } from "../helpers/lifecycle.ts"
import { startServer } from "../helpers/server.ts"

const jobsTotal = async (server: { url: string }) => {
  const text = await (await fetch(`${server.url}/metrics`)).text()
  return [...text.matchAll(/^pressroom_jobs\{status="[a-z]+"\} (\d+)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0)
}

/** The value of one labelled series in /metrics, or `absent` when /metrics does not list it. */
const metricIn = (text: string, name: string, label: string, value: string, absent: number) =>
  Number(new RegExp(`^${name}\\{${label}="${value}"\\} (\\d+)$`, "m").exec(text)?.[1] ?? absent)
const metric = async (server: { url: string }, name: string, label: string, value: string, absent: number) =>
  metricIn(await (await fetch(`${server.url}/metrics`)).text(), name, label, value, absent)

/** A status no job has yet is not listed. */
const jobsWithStatus = (server: { url: string }, status: string) => metric(server, "pressroom_jobs", "status", status, 0)

/** Compiler workers replaced for `reason`; every reason is always listed. */
const replacements = (server: { url: string }, reason: string) =>
  metric(server, "pressroom_render_worker_replacements_total", "reason", reason, Number.NaN)

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, {
    ...database.env,
    PRESSROOM_RATE_LIMIT_CONVERT_PER_MINUTE: "25",
    // Long enough for a client to see its job run and the next one queue behind it, and abort both, on a loaded machine.
    PRESSROOM_RENDER_TIMEOUT_MS: "6000"
  })

  await t.test("one unit left: 20 concurrent conversions admit exactly one", async (t) => {
    const account = await createAccount(server, { plan: "monthly", monthlyUnits: 1 })
    const samples: Array<number> = []
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        const usage = await usageOf(server, account.accountId)
        samples.push(usage.used + usage.reserved + usage.remaining)
      }
    })()
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => convert(server, account.key, { markdown: `# Request ${i}\n\nOne of twenty.` }))
    )
    sampling = false
    await sampler
    const statuses = responses.map((response) => response.status).sort()
    t.same(statuses, [200, ...Array(19).fill(402)], "one 200 and nineteen 402")
    for (const refused of responses.filter((response) => response.status === 402)) {
      t.equal(refused.error?.error.code, "quota_exhausted")
    }
    t.ok(samples.length > 0 && samples.every((total) => total === 1), `used + reserved + remaining = 1 in all ${samples.length} samples`)
    const usage = await usageOf(server, account.accountId)
    t.match(usage, { used: 1, reserved: 0, remaining: 0 })
  })

  await t.test("a document that cannot be typeset fails with rendering_failed and charges nothing", async (t) => {
    // A deadline of its own, well short of the time the slow document takes on either engine, so
    // that this checks the deadline's end of a render.
    const own = await freshDatabase(database.kind)
    t.teardown(own.drop)
    const server = await startServer(t, { ...own.env, PRESSROOM_RENDER_TIMEOUT_MS: "1500" })
    const account = await createAccount(server)
    const before = await usageOf(server, account.accountId)
    const timedOut = await replacements(server, "timeout")
    const response = await convert(server, account.key, { markdown: slowDocument })
    t.equal(response.status, 422)
    t.equal(response.error?.error.code, "rendering_failed")
    t.equal(response.error?.error.category, "render")
    t.same(await usageOf(server, account.accountId), before, "the reserved unit was released")
    t.ok((await replacements(server, "timeout")) > timedOut, "/metrics counts the worker replaced past its deadline")
    t.equal((await convert(server, account.key, { markdown: "Next one works." })).status, 200, "the next conversion succeeds")
  })

  await t.test("a rate-limited conversion gets 429 and creates and charges nothing", async (t) => {
    const account = await createAccount(server)
    for (let i = 0; i < 25; i++) await convert(server, account.key, { markdown: "x", templateId: "no-such-template" })
    const jobsBefore = await jobsTotal(server)
    const limited = await convert(server, account.key, { markdown: "# Would be charged" })
    t.equal(limited.status, 429)
    t.equal(limited.error?.error.code, "rate_limited")
    t.equal(limited.error?.error.retryable, true)
    const retryAfter = Number(limited.headers.get("retry-after"))
    t.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After is whole seconds (${retryAfter})`)
    t.equal(limited.error?.error.details.retryAfterSeconds, retryAfter, "details.retryAfterSeconds equals Retry-After")
    t.equal(await jobsTotal(server), jobsBefore, "no job was created")
    t.equal((await usageOf(server, account.accountId)).used, 0, "no unit was used")
  })

  await t.test("a client that gives up cancels its job, queued or running, and the unit is released", async (t) => {
    const account = await createAccount(server)
    const cancelledBefore = await jobsWithStatus(server, "cancelled")
    // Both from one reading of /metrics.
    const states = async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text()
      return {
        running: metricIn(text, "pressroom_jobs", "status", "running", 0),
        queued: metricIn(text, "pressroom_jobs", "status", "queued", 0)
      }
    }
    t.same(await states(), { running: 0, queued: 0 }, "no job is running or queued before")
    const running = new AbortController()
    const queued = new AbortController()
    // One render worker: the slow document holds it until the deadline, the second job waits behind it.
    const first = convert(server, account.key, { markdown: slowDocument }, { signal: running.signal }).catch(() => "aborted")
    await until("the slow document to run", async () => (await states()).running === 1)
    const second = convert(server, account.key, { markdown: "Never rendered." }, { signal: queued.signal }).catch(() => "aborted")
    await until("the second job to be queued", async () => (await states()).queued === 1)
    t.same(await states(), { running: 1, queued: 1 }, "the first job runs, the second waits behind it")
    queued.abort()
    running.abort()
    t.same(await Promise.all([first, second]), ["aborted", "aborted"])
    await until("both jobs to end", async () => (await jobsWithStatus(server, "cancelled")) >= cancelledBefore + 2)
    t.equal(await jobsWithStatus(server, "cancelled"), cancelledBefore + 2, "both jobs were cancelled")
    t.same(await states(), { running: 0, queued: 0 }, "neither runs nor waits any more")
    const usage = await usageOf(server, account.accountId)
    t.equal(usage.used + usage.reserved, 0, "both units were released")
  })

  await t.test("storage that cannot be written: retried, then 500 with the unit released", async (t) => {
    const account = await createAccount(server)
    await breakArtifactWrites(t, server, database)
    const response = await convert(server, account.key, { markdown: "Doomed to be unsaved." })
    t.equal(response.status, 500)
    t.equal(response.error?.error.code, "internal_error")
    t.equal(response.error?.error.retryable, true)
    const usage = await usageOf(server, account.accountId)
    t.equal(usage.used + usage.reserved, 0, "the unit was released, not charged")
  })
})

await t.test("SIGTERM lets a running conversion finish, then the process exits", async (t) => {
  const database = await freshDatabase("pglite")
  t.teardown(database.drop)
  const server = await startServer(t, database.env)
  const account = await createAccount(server)
  const markdown = Array.from({ length: 800 }, (_, i) => `## Part ${i}\n\nStill rendering while the process is asked to stop.\n`).join("\n")
  const request = convert(server, account.key, { markdown })
  while ((await jobsWithStatus(server, "running")) === 0) await new Promise((resolve) => setTimeout(resolve, 20))
  const exitCode = server.stop()
  t.equal((await request).status, 200, "the in-flight conversion completed")
  t.equal(await exitCode, 0, "the process exited cleanly")
})
