/**
 * The client's retries (specification section 4, retry guidance), against a real server behind a
 * recording proxy that answers one request itself: a 429 with Retry-After is tried again after
 * that delay with the same Idempotency-Key and succeeds; a connection reset before any answer is
 * tried again with the same key when the request carries one, and not when resending could do a
 * second thing the caller never asked for.
 */
import t from "tap"
import { ConnectionError, PressroomClient } from "../../src/client/index.ts"
import { createAccount } from "../helpers/api.ts"
import { startRecordingProxy } from "../helpers/recording-proxy.ts"
import { sharedServer } from "../helpers/shared-server.ts"

t.test("retries", async (t) => {
  const server = await sharedServer(t, "pglite")
  const { key } = await createAccount(server)
  const proxy = await startRecordingProxy(t, server.url)
  const client = new PressroomClient({ baseUrl: proxy.url, apiKey: key })
  const sentTo = (method: string, path: RegExp) => proxy.requests.filter((request) => request.method === method && path.test(request.path))

  let created: Awaited<ReturnType<typeof client.documents.create>> | undefined

  await t.test("429 with Retry-After: 1", async (t) => {
    proxy.interceptOnce("POST", /^\/api\/v2\/documents$/, { kind: "rate_limited", retryAfterSeconds: 1 })
    created = await client.documents.create({
      payload: {
        taskId: "client-retries",
        title: null,
        revision: { markdown: "# Retries", parentRevisionId: null, spec: { locale: "en", templateId: "clean" } }
      }
    })
    const [first, second, ...more] = sentTo("POST", /^\/api\/v2\/documents$/)
    t.same(more, [], "two requests in all")
    t.ok(first?.idempotencyKey, "the first carried an Idempotency-Key the client made")
    t.equal(second?.idempotencyKey, first?.idempotencyKey, "the retry carried the same key")
    const waited = second!.at - first!.at
    t.ok(waited >= 900, `the retry waited for Retry-After (${Math.round(waited)} ms)`)
    const { documents } = await client.documents.list({ urlParams: {} })
    t.same(
      documents.map((document) => document.id),
      [created.document.id],
      "one document was created"
    )
  })

  await t.test("a reset connection, with the caller's key", async (t) => {
    const { document, revision } = created!
    const publishes = new RegExp(`^/api/v2/documents/${document.id}/publishes$`)
    proxy.interceptOnce("POST", publishes, { kind: "reset" })
    const publication = await client.documents.createPublication({
      path: { documentId: document.id },
      headers: { "idempotency-key": "caller-chosen-key-1" },
      payload: { revisionId: revision.id, output: { filename: "retries.pdf", format: "pdf" } }
    })
    t.same(
      sentTo("POST", publishes).map((request) => request.idempotencyKey),
      ["caller-chosen-key-1", "caller-chosen-key-1"],
      "sent twice, with the caller's key both times"
    )
    t.ok(["queued", "running", "succeeded"].includes(publication.job.status), `the publication was accepted (${publication.job.status})`)
  })

  await t.test("a reset connection, on a POST that takes no key", async (t) => {
    const links = /^\/api\/v2\/artifacts\/[^/]+\/links$/
    proxy.interceptOnce("POST", links, { kind: "reset" })
    const error = await client.artifacts.createLink({ path: { artifactId: crypto.randomUUID() } }).catch((error: unknown) => error)
    t.ok(error instanceof ConnectionError, `a ConnectionError (${String(error)})`)
    t.equal(sentTo("POST", links).length, 1, "sent once: a POST without an Idempotency-Key is not sent again")
  })
})
