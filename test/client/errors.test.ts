/**
 * The client's errors, against a real server behind a recording proxy: an error answer rejects
 * with the PressroomError subclass of its code, carrying the specification's error object, and a
 * `retryable: false` answer (400, 404, 409, 422) reaches the server once, never retried; a
 * request the API definition refuses (a malformed id) is a TypeError and is not sent. The Effect
 * client fails with the tagged error that carries the same object.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import t from "tap"
import {
  ConflictError,
  InvalidRequestError,
  InvalidStateTransitionError,
  makeEffectClient,
  NotFoundError,
  PressroomClient,
  PressroomError,
  PublishedError
} from "../../src/client/index.ts"
import { createAccount } from "../helpers/api.ts"
import { startRecordingProxy } from "../helpers/recording-proxy.ts"
import { sharedServer } from "../helpers/shared-server.ts"
import type { TestContext } from "../helpers/tap.ts"

/** Outside the catalog: the client's types refuse it, so it is cast, and the client still sends it for the server to refuse (422). */
const NOT_IN_CATALOG = "no-such-template" as "clean"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** What `call` rejected with; fails the test when it resolved. */
const rejectionOf = async (call: Promise<unknown>): Promise<unknown> => {
  try {
    await call
  } catch (error) {
    return error
  }
  throw new Error("the call succeeded")
}

t.test("typed errors, not retried", async (t) => {
  const server = await sharedServer(t, "pglite")
  const { key } = await createAccount(server)
  const proxy = await startRecordingProxy(t, server.url)
  const client = new PressroomClient({ baseUrl: proxy.url, apiKey: key })

  /** The requests `call` sent, and what it rejected with. */
  const attempt = async (call: () => Promise<unknown>) => {
    const before = proxy.requests.length
    const error = await rejectionOf(call())
    return { error, sent: proxy.requests.slice(before) }
  }
  const checkPublished = (t: TestContext, error: unknown, code: string, httpStatus: number) => {
    if (!(error instanceof PressroomError)) throw new Error(`not a PressroomError: ${String(error)}`)
    t.equal(error.code, code)
    t.equal(error.httpStatus, httpStatus)
    t.equal(error.retryable, false)
    t.match(error.correlationId, UUID, "the correlation id is the request's")
    t.equal(error.details.correlationId, error.correlationId)
    t.equal(error.name, error.constructor.name)
  }

  await t.test("404", async (t) => {
    const { error, sent } = await attempt(() => client.jobs.get({ path: { jobId: randomUUID() } }))
    t.ok(error instanceof NotFoundError, "a NotFoundError")
    checkPublished(t, error, "not_found", 404)
    t.equal(sent.length, 1, "sent once")
  })

  const created = await client.documents.create({
    payload: {
      taskId: "client-errors",
      title: null,
      revision: { markdown: "# Errors", parentRevisionId: null, spec: { locale: "en", templateId: "clean" } }
    }
  })

  await t.test("409", async (t) => {
    const { job } = await client.documents.createPreview({
      path: { documentId: created.document.id },
      payload: { revisionId: created.revision.id, output: { filename: "preview.pdf", format: "pdf" } }
    })
    await client.jobs.cancel({ path: { jobId: job.id }, payload: null }).catch(() => {})
    // Cancelled or ended by now, either way past the states a cancel takes.
    const ended = await client.jobs.get({ path: { jobId: job.id } })
    const { error, sent } = await attempt(() => client.jobs.cancel({ path: { jobId: job.id }, payload: null }))
    t.ok(error instanceof InvalidStateTransitionError, "an InvalidStateTransitionError")
    t.ok(error instanceof ConflictError, "a ConflictError")
    checkPublished(t, error, "invalid_state_transition", 409)
    const details = (error as PressroomError).details
    t.equal(details.currentState, ended.job.status, "details name the job's state")
    t.ok((details.expectedStates ?? []).includes("queued"), `details list the states a cancel takes: ${details.expectedStates}`)
    t.equal(sent.length, 1, "sent once")
  })

  await t.test("422", async (t) => {
    const { error, sent } = await attempt(() =>
      client.documents.createRevision({
        path: { documentId: created.document.id },
        payload: { markdown: "# Again", parentRevisionId: null, spec: { locale: "en", templateId: NOT_IN_CATALOG } }
      })
    )
    t.ok(error instanceof InvalidRequestError, "an InvalidRequestError")
    checkPublished(t, error, "invalid_request", 422)
    t.match((error as Error).message, /no-such-template/, "the message names what was refused")
    t.equal(sent.length, 1, "sent once")
    t.match(sent[0]!.idempotencyKey, UUID, "with the Idempotency-Key the client made")
  })

  await t.test("400", async (t) => {
    const { error, sent } = await attempt(() => client.documents.list({ urlParams: { cursor: "not-a-cursor" } }))
    t.ok(error instanceof InvalidRequestError, "an InvalidRequestError")
    checkPublished(t, error, "invalid_request", 400)
    t.equal(sent.length, 1, "sent once")
  })

  await t.test("a request the API definition refuses is not sent", async (t) => {
    const { error, sent } = await attempt(() => client.jobs.get({ path: { jobId: "not-a-uuid" } }))
    t.ok(error instanceof TypeError, `a TypeError (${String(error)})`)
    t.notOk(error instanceof PressroomError, "not the server's error")
    t.match((error as Error).message, /jobId/, "the message names the argument")
    t.equal(sent.length, 0, "nothing was sent")
  })

  await t.test("the Effect client fails with the tagged error", async (t) => {
    const jobId = randomUUID()
    const error = await Effect.runPromise(
      Effect.flatMap(makeEffectClient({ baseUrl: proxy.url, apiKey: key }), (effectClient) =>
        Effect.flip(effectClient.jobs.get({ path: { jobId } }))
      ).pipe(Effect.provide(FetchHttpClient.layer))
    )
    t.ok(error instanceof PublishedError, "a PublishedError")
    if (!(error instanceof PublishedError)) return
    t.equal(error._tag, "PublishedError")
    t.match(error.error, { code: "not_found", httpStatus: 404, retryable: false, category: "authorization" })
    t.equal(error.headers["content-type"], "application/json", "with the answer's headers")
  })
})
