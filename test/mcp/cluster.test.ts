/**
 * The MCP server is stateless (contract section 13): one client whose consecutive requests
 * alternate between two `pressroom serve` processes on one PostgreSQL (the same server key)
 * initializes on one, lists and calls on both, and follows a job admitted on one from the other.
 * PGlite is one process by design, so this runs on PostgreSQL only.
 */
import t from "tap"
import { createAccount } from "../helpers/api.ts"
import { freshDatabase, postgresServerUrl } from "../helpers/database.ts"
import { until } from "../helpers/lifecycle.ts"
import { call, connect, documentArguments, output } from "../helpers/mcp.ts"
import { startServer } from "../helpers/server.ts"

if (!postgresServerUrl) {
  t.comment("PRESSROOM_TEST_DATABASE_URL is not set: the cluster test needs PostgreSQL and was skipped")
} else {
  const database = await freshDatabase("postgres")
  t.teardown(database.drop)
  const a = await startServer(t, database.env)
  const b = await startServer(t, database.env)
  const owner = await createAccount(a)

  // Every request goes to the other process than the one before, whatever URL the client meant.
  const servers = [new URL(a.url), new URL(b.url)]
  const reached: Array<string> = []
  const alternating = (input: string | URL, init?: RequestInit) => {
    const target = new URL(input)
    const server = servers[reached.length % 2]!
    target.host = server.host
    reached.push(server.host)
    return fetch(target, init)
  }

  t.test("one client, requests alternating between two processes", async (t) => {
    const client = await connect(a.url, owner.key, alternating)
    t.teardown(() => client.close())
    t.equal((await client.listTools()).tools.length, 11)
    const created = await call(client, "create_document", {
      ...documentArguments("# Clustered\n\nAcross processes."),
      idempotencyKey: "cluster-key-01"
    })
    const replayed = await call(client, "create_document", {
      ...documentArguments("# Clustered\n\nAcross processes."),
      idempotencyKey: "cluster-key-01"
    })
    t.equal(replayed.structured.document.id, created.structured.document.id, "the key's record is shared: a replay on the other process")
    const { document, revision } = created.structured
    const published = await call(client, "publish_revision", { documentId: document.id, ...output(revision.id) })
    const ended = await until("the publication ends", async () => {
      const { structured } = await call(client, "get_job", { jobId: published.structured.job.id })
      return structured.job.status === "succeeded" ? structured : undefined
    })
    t.equal(ended.job.provenance.channel, "mcp_v2")
    const link = await call(client, "create_download_link", { artifactId: ended.artifact.id })
    t.equal((await fetch(link.structured.href)).status, 200)
    t.same(new Set(reached), new Set(servers.map((server) => server.host)), "both processes answered")
  })
}
