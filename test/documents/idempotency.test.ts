/**
 * Idempotency on every mutating v2 operation (specification section 4, contract section 4),
 * black-box against a real server on each database: the same key and body replay the saved
 * status, headers and body with `Idempotency-Replayed: true` and do nothing again (one document,
 * one revision, one job, one unit); the same key with another body or path is 409
 * `idempotency_conflict`, not retryable; a record belongs to its owner and operation; creating an
 * artifact link takes no key.
 */
import t from "tap"
import { createAccount, type JsonResponse, requestJson, usageOf } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { type RunningServer, startServer } from "../helpers/server.ts"
import type { TestContext } from "../helpers/tap.ts"
import { awaitJob, idempotencyKey, mutate, newDocument, renderBody, revisionBody } from "../helpers/v2.ts"
import { expectError } from "../helpers/v2-contract.ts"

/** How many jobs the server holds, in every state (its /metrics gauge, read from the database). */
const jobCount = async (server: RunningServer) => {
  const text = await (await fetch(`${server.url}/metrics`)).text()
  return [...text.matchAll(/^pressroom_jobs\{status="[a-z]+"\} (\d+)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0)
}

/** The second answer is the first one replayed: same status, body and Location, marked replayed. */
const isReplay = (t: TestContext, first: JsonResponse, again: JsonResponse, what: string) => {
  t.equal(first.headers.get("idempotency-replayed"), null, `${what}: the first answer is not a replay`)
  t.equal(again.headers.get("idempotency-replayed"), "true", `${what}: Idempotency-Replayed: true`)
  t.equal(again.status, first.status, `${what}: the same status`)
  t.same(again.body, first.body, `${what}: the same body`)
  t.equal(again.headers.get("location"), first.headers.get("location"), `${what}: the same Location`)
}

const documentBody = (taskId = "task-idem") => ({ taskId, title: "Idempotent", revision: revisionBody() })

t.test("v2 idempotency", (t) =>
  forEachDatabase(t, async (t, database) => {
    // Admission answers at once (202), so that a job is still unfinished when it is cancelled.
    const server = await startServer(t, { ...database.env, PRESSROOM_SYNC_THRESHOLD_MS: "0" })

    await t.test("create document: replayed, one document; another body is 409", async (t) => {
      const { key: token } = await createAccount(server)
      const key = idempotencyKey()
      const first = await mutate(server, "POST", "/api/v2/documents", token, documentBody(), key)
      t.equal(first.status, 201)
      isReplay(t, first, await mutate(server, "POST", "/api/v2/documents", token, documentBody(), key), "create document")
      const conflict = await mutate(server, "POST", "/api/v2/documents", token, documentBody("task-other"), key)
      expectError(t, conflict, 409, "idempotency_conflict", "the same key with another body")
      const listed = await requestJson(server, "GET", "/api/v2/documents", { token })
      t.same(
        listed.body.documents.map((document: { id: string }) => document.id),
        [first.body.document.id],
        "one document"
      )
    })

    await t.test("a record belongs to its owner and its operation", async (t) => {
      const one = await createAccount(server)
      const two = await createAccount(server)
      const key = idempotencyKey()
      const first = await mutate(server, "POST", "/api/v2/documents", one.key, documentBody(), key)
      const theirs = await mutate(server, "POST", "/api/v2/documents", two.key, documentBody(), key)
      t.equal(theirs.status, 201, "another owner's request with the same key and body is its own")
      t.equal(theirs.headers.get("idempotency-replayed"), null)
      t.not(theirs.body.document.id, first.body.document.id)
      const revised = await mutate(
        server,
        "POST",
        `/api/v2/documents/${first.body.document.id}/revisions`,
        one.key,
        documentBody().revision,
        key
      )
      t.equal(revised.status, 201, "the same key on another operation is another request")
      t.equal(revised.headers.get("idempotency-replayed"), null)
    })

    await t.test("create revision: replayed, one revision; another body is 409", async (t) => {
      const { key: token } = await createAccount(server)
      const { documentId } = await newDocument(server, token)
      const path = `/api/v2/documents/${documentId}/revisions`
      const key = idempotencyKey()
      const first = await mutate(server, "POST", path, token, revisionBody("# Second"), key)
      t.equal(first.status, 201)
      isReplay(t, first, await mutate(server, "POST", path, token, revisionBody("# Second"), key), "create revision")
      expectError(t, await mutate(server, "POST", path, token, revisionBody("# Third"), key), 409, "idempotency_conflict", "another body")
      const detail = await requestJson(server, "GET", `/api/v2/documents/${documentId}`, { token })
      t.equal(detail.body.latestRevision.id, first.body.revision.id)
      t.equal(detail.body.latestRevision.sequence, 2, "one revision after the first")
    })

    for (const [kind, path] of [
      ["preview", "previews"],
      ["publication", "publishes"]
    ] as const) {
      await t.test(`${kind}: replayed, one job${kind === "publication" ? ", one unit" : ""}; another body is 409`, async (t) => {
        const account = await createAccount(server)
        const { documentId, revisionId } = await newDocument(server, account.key)
        const url = `/api/v2/documents/${documentId}/${path}`
        const key = idempotencyKey()
        const jobsBefore = await jobCount(server)
        const first = await mutate(server, "POST", url, account.key, renderBody(revisionId), key)
        t.equal(first.status, 202)
        isReplay(t, first, await mutate(server, "POST", url, account.key, renderBody(revisionId), key), kind)
        t.equal((await awaitJob(server, account.key, first.body.job.id)).body.job.status, "succeeded")
        const conflict = await mutate(server, "POST", url, account.key, renderBody(revisionId, "other.pdf"), key)
        expectError(t, conflict, 409, "idempotency_conflict", "another filename")
        t.equal(await jobCount(server), jobsBefore + 1, "one job")
        const usage = await usageOf(server, account.accountId)
        t.same({ used: usage.used, reserved: usage.reserved }, { used: kind === "publication" ? 1 : 0, reserved: 0 }, "units")
      })
    }

    await t.test("delete: replayed as accepted (a new key says already_deleted); another document is 409", async (t) => {
      const { key: token } = await createAccount(server)
      const { documentId } = await newDocument(server, token)
      const { documentId: otherId } = await newDocument(server, token)
      const key = idempotencyKey()
      const first = await mutate(server, "DELETE", `/api/v2/documents/${documentId}`, token, undefined, key)
      t.equal(first.status, 202)
      t.equal(first.body.status, "accepted")
      isReplay(t, first, await mutate(server, "DELETE", `/api/v2/documents/${documentId}`, token, undefined, key), "delete")
      const fresh = await mutate(server, "DELETE", `/api/v2/documents/${documentId}`, token)
      t.equal(fresh.body.status, "already_deleted", "a new key sees the deletion done")
      const conflict = await mutate(server, "DELETE", `/api/v2/documents/${otherId}`, token, undefined, key)
      expectError(t, conflict, 409, "idempotency_conflict", "the same key on another document")
      const other = await requestJson(server, "GET", `/api/v2/documents/${otherId}`, { token })
      t.equal(other.body.document.status, "active", "the other document is untouched")
    })

    await t.test("cancel: replayed; another job is 409", async (t) => {
      const { key: token } = await createAccount(server)
      // A long document, so that the cancel finds its publication unfinished.
      const { documentId, revisionId } = await newDocument(server, token, { markdown: "Paragraph of text.\n\n".repeat(9_000) })
      const admitted = await mutate(server, "POST", `/api/v2/documents/${documentId}/publishes`, token, renderBody(revisionId))
      const other = await mutate(server, "POST", `/api/v2/documents/${documentId}/previews`, token, renderBody(revisionId))
      const jobId = admitted.body.job.id as string
      const key = idempotencyKey()
      const first = await mutate(server, "POST", `/api/v2/jobs/${jobId}/cancel`, token, undefined, key)
      t.ok([200, 202].includes(first.status), `cancelled or being stopped (${first.status} ${first.body?.job?.status})`)
      isReplay(
        t,
        first,
        await mutate(server, "POST", `/api/v2/jobs/${jobId}/cancel`, token, {}, key),
        "cancel (no body and {} are one request)"
      )
      const conflict = await mutate(server, "POST", `/api/v2/jobs/${other.body.job.id}/cancel`, token, undefined, key)
      expectError(t, conflict, 409, "idempotency_conflict", "the same key on another job")
      t.equal((await awaitJob(server, token, jobId)).body.job.status, "cancelled")
    })

    await t.test("create link takes no key: each call mints, none is a replay", async (t) => {
      const { key: token } = await createAccount(server)
      const { documentId, revisionId } = await newDocument(server, token)
      const published = await mutate(server, "POST", `/api/v2/documents/${documentId}/publishes`, token, renderBody(revisionId))
      const ended = await awaitJob(server, token, published.body.job.id)
      const path = `/api/v2/artifacts/${ended.body.artifact.id}/links`
      const key = idempotencyKey()
      for (const headers of [{}, { "idempotency-key": key }, { "idempotency-key": key }] as Array<Record<string, string>>) {
        const link = await requestJson(server, "POST", path, { token, headers })
        t.equal(link.status, 201)
        t.equal(link.headers.get("idempotency-replayed"), null, "not a replay")
      }
    })
  })
)
