/**
 * A PostgreSQL server that goes away and comes back, as a client and an operator see it: while
 * the database cannot be reached every request is refused with 503 service_unavailable,
 * retryable, with Retry-After and no trace of the cause; the process stays up; once the database
 * is back the same requests succeed, and a new job is rendered at once (the process hears that
 * it is queued again, rather than finding it at its next 30 s recheck). PostgreSQL only: PGlite
 * runs in the process and cannot go away.
 */
import t from "tap"
import { convert, createAccount, requestJson } from "../helpers/api.ts"
import { freshDatabase, postgresServerUrl } from "../helpers/database.ts"
import { until } from "../helpers/lifecycle.ts"
import { startServer } from "../helpers/server.ts"
import { startTcpProxy } from "../helpers/tcp-proxy.ts"
import { expectError } from "../helpers/v2-contract.ts"
import { mutate, newDocument, preview, publish } from "../helpers/v2.ts"

if (!postgresServerUrl) {
  t.comment("PRESSROOM_TEST_DATABASE_URL is not set: the database outage test needs PostgreSQL and was skipped")
} else {
  const database = await freshDatabase("postgres")
  t.teardown(database.drop)
  const proxy = await startTcpProxy(t, database.env.DATABASE_URL!)
  const server = await startServer(t, { ...database.env, DATABASE_URL: proxy.through(database.env.DATABASE_URL!) })
  const owner = await createAccount(server)
  const { documentId, revisionId } = await newDocument(server, owner.key)
  const published = await publish(server, owner.key, documentId, revisionId)
  t.equal(published.status, 200)
  const artifactId = published.body.artifact.id as string

  await t.test("while the database is away: 503 service_unavailable with Retry-After, and the process stays up", async (t) => {
    proxy.cut()
    const requests = {
      "create an artifact link": () => mutate(server, "POST", `/api/v2/artifacts/${artifactId}/links`, owner.key),
      "create a preview": () => preview(server, owner.key, documentId, revisionId),
      "create a publication": () => publish(server, owner.key, documentId, revisionId),
      "get a document": () => requestJson(server, "GET", `/api/v2/documents/${documentId}`, { token: owner.key })
    }
    for (const [what, request] of Object.entries(requests)) {
      const response = await request()
      expectError(t, response, 503, "service_unavailable", what, { retryable: true })
      t.equal(response.headers.get("retry-after"), "2", `${what}: Retry-After`)
      t.notMatch(
        JSON.stringify(response.body),
        /ECONN|Connection terminated|at .*\.js|127\.0\.0\.1|postgres/i,
        `${what}: nothing of the cause`
      )
    }
    const converted = await convert(server, owner.key, { markdown: "# Away" })
    t.equal(converted.status, 503, "v1 convert: 503")
    t.match(converted.error, { error: { code: "service_unavailable", retryable: true } })
    t.equal(server.process.exitCode, null, "the process is still running")
  })

  await t.test("once it is back: the same requests succeed, and a new job renders at once", async (t) => {
    proxy.restore()
    await until(
      "a link to be minted again",
      async () => (await mutate(server, "POST", `/api/v2/artifacts/${artifactId}/links`, owner.key)).status === 201
    )
    t.pass("a link is minted again")
    await until("the process to listen again", async () => server.output().includes("listening for notifications again"))
    t.pass("the process says it listens for notifications again")
    // Within the 2 s threshold: the process heard the job queued, over its new listening connection.
    const previewed = await preview(server, owner.key, documentId, revisionId)
    t.equal(previewed.status, 200, "answered within the threshold")
    t.equal(previewed.body.job.status, "succeeded")
    t.equal((await publish(server, owner.key, documentId, revisionId)).status, 200, "a publication too")
  })
}
