/**
 * Cancelling v2 jobs (contract sections 5 and 6), black-box on each database, one render worker
 * and PRESSROOM_SYNC_THRESHOLD_MS=0: a queued job is cancelled at once (200, job_cancelled) and
 * its unit released; a running one answers 200 or 202, then ends cancelled with its unit
 * released, and the worker serves the next job; an ended job is 409 invalid_state_transition.
 */
import t from "tap"
import { createAccount, usageOf } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { checkJobResponse } from "../helpers/job-response.ts"
import { slowDocument, until } from "../helpers/lifecycle.ts"
import { startServer } from "../helpers/server.ts"
import { awaitJob, getJob, mutate, newDocument, preview, publish } from "../helpers/v2.ts"

const cancel = (server: { url: string }, key: string, jobId: string) => mutate(server, "POST", `/api/v2/jobs/${jobId}/cancel`, key)

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, { ...database.env, PRESSROOM_SYNC_THRESHOLD_MS: "0" })

  await t.test("queued, then running: both end cancelled and both units are released", async (t) => {
    const account = await createAccount(server, { monthlyUnits: 5 })
    const slow = await newDocument(server, account.key, { markdown: slowDocument })
    const short = await newDocument(server, account.key)
    const running = (await publish(server, account.key, slow.documentId, slow.revisionId)).body.job.id as string
    await until("the slow job to run", async () => (await getJob(server, account.key, running)).body.job.status === "running")
    const queued = await publish(server, account.key, short.documentId, short.revisionId)
    t.equal(queued.body.job.status, "queued", "the second job waits for the one worker")
    t.match(await usageOf(server, account.accountId), { used: 0, reserved: 2 }, "both units reserved")

    const cancelledQueued = await cancel(server, account.key, queued.body.job.id)
    t.equal(cancelledQueued.status, 200, "a queued job is cancelled at once")
    const body = checkJobResponse(t, cancelledQueued.body)
    t.match(body.job, { status: "cancelled", artifactId: null, error: { code: "job_cancelled", category: "conflict", httpStatus: 409 } })
    t.not(body.job.completedAt, null, "it has ended")
    t.match(await usageOf(server, account.accountId), { used: 0, reserved: 1 }, "its unit is released")

    const cancelledRunning = await cancel(server, account.key, running)
    t.ok([200, 202].includes(cancelledRunning.status), `a running job: ${cancelledRunning.status}`)
    checkJobResponse(t, cancelledRunning.body)
    const ended = await awaitJob(server, account.key, running, 15_000)
    t.match(ended.body.job, { status: "cancelled", error: { code: "job_cancelled" } })
    t.equal(ended.body.artifact, null, "no artifact")
    t.match(await usageOf(server, account.accountId), { used: 0, reserved: 0, remaining: 5 }, "both units are released")

    const next = await preview(server, account.key, short.documentId, short.revisionId)
    t.equal((await awaitJob(server, account.key, next.body.job.id)).body.job.status, "succeeded", "the worker serves the next job")
  })

  await t.test("an ended job: 409 invalid_state_transition with its state", async (t) => {
    const account = await createAccount(server)
    const { documentId, revisionId } = await newDocument(server, account.key)
    const jobId = (await preview(server, account.key, documentId, revisionId)).body.job.id as string
    t.equal((await awaitJob(server, account.key, jobId)).body.job.status, "succeeded")
    const refused = await cancel(server, account.key, jobId)
    t.equal(refused.status, 409)
    t.match(refused.body.error, { code: "invalid_state_transition", category: "conflict", httpStatus: 409 })
    t.same(refused.body.error.details.expectedStates, ["accepted", "queued", "running"])
    t.equal(refused.body.error.details.currentState, "succeeded")
    t.equal((await getJob(server, account.key, jobId)).body.job.status, "succeeded", "the job is unchanged")

    const publication = (await publish(server, account.key, documentId, revisionId)).body.job.id as string
    await cancel(server, account.key, publication)
    const again = await cancel(server, account.key, publication)
    const state = (await awaitJob(server, account.key, publication)).body.job.status
    if (again.status === 409) t.equal(again.body.error.details.currentState, state, `a second cancel names the state: ${state}`)
    else t.ok([200, 202].includes(again.status), "or the job was still being stopped")
  })
})
