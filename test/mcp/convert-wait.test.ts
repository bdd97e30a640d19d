/**
 * convert_markdown's wait (contract section 13, issue 35), in process on each database with a stub
 * renderer whose `gate` renders end when the test says: the tool awaits a render past the
 * synchronous threshold, up to its own wait (50 s, as an SDK client gives up at 60 s); a render
 * that outlasts the wait comes back as its job, with `artifact` and `link` null, followed with
 * get_job and create_download_link. The wait is shortened here so that no test waits 50 s.
 */
import { ConfigProvider, Duration, Effect, Schema } from "effect"
import t from "tap"
import type { Principal } from "../../src/accounts/principal.ts"
import { callTool } from "../../src/mcp/calls.ts"
import { type Tool, tool } from "../../src/mcp/tool.ts"
import { CONVERT_WAIT, tools } from "../../src/mcp/tools.ts"
import { insertAccountWithKey } from "../helpers/accounts.ts"
import { forEachDatabase, type TestDatabase } from "../helpers/database.ts"
import { until } from "../helpers/lifecycle.ts"
import { runtimeOf, stubPlatform } from "../helpers/platform.ts"
import type { TestContext } from "../helpers/tap.ts"

// A base URL for the download links: no HTTP server runs here to name one.
const config = ConfigProvider.fromMap(
  new Map([
    ["PRESSROOM_RENDER_WORKERS", "1"],
    ["PRESSROOM_PUBLIC_BASE_URL", "https://pressroom.example.com"]
  ])
)

const withPlatform = async (t: TestContext, database: TestDatabase) => {
  const { layer, stub } = await stubPlatform(database, config)
  return { run: runtimeOf(t, layer), stub }
}

const named = (list: ReadonlyArray<Tool>, name: string) => list.find((tool) => tool.name === name)!

t.test("convert_markdown's wait", (t) =>
  forEachDatabase(t, async (t, database) => {
    const { run, stub } = await withPlatform(t, database)
    const principal: Principal = await run(
      Effect.map(Effect.orDie(insertAccountWithKey({ plan: "monthly" })), ({ accountId }) => ({
        accountId,
        actor: { kind: "key", keyId: accountId },
        plan: "monthly",
        scopes: new Set(["documents.render", "documents.read"])
      }))
    )
    /** A tool call as /mcp makes it, with the tools of a server whose synchronous threshold is 0. */
    const call = async (list: ReadonlyArray<Tool>, name: string, args: Record<string, unknown>) => {
      const result = await run(callTool(named(list, name), principal, args) as Effect.Effect<any, never, any>)
      return result as { isError?: boolean; structuredContent: any; content: Array<{ text: string }> }
    }

    t.equal(Duration.toMillis(CONVERT_WAIT), 50_000, "the server's wait: within an SDK client's 60 s")

    await t.test("a render past the synchronous threshold is awaited, up to the tool's wait", async (t) => {
      const list = tools(Duration.zero)
      const started = Date.now()
      const released = Effect.runPromise(Effect.delay(stub.release("later"), Duration.seconds(2)))
      const result = await call(list, "convert_markdown", { markdown: "gate later" })
      await released
      t.not(result.isError, true, result.content[0]?.text ?? "")
      t.ok(Date.now() - started >= 2_000, "answered once the render ended, not at the threshold")
      t.equal(result.structuredContent.job.status, "succeeded")
      t.equal(result.structuredContent.job.provenance.channel, "mcp_v1")
      t.equal(result.structuredContent.link.artifactId, result.structuredContent.artifact.id, "with its artifact and a link")
    })

    await t.test("a render that outlasts the wait: the job, to follow with get_job and create_download_link", async (t) => {
      const list = tools(Duration.zero, Duration.millis(500))
      const result = await call(list, "convert_markdown", { markdown: "gate slow", idempotencyKey: "slow-convert-01" })
      t.not(result.isError, true, result.content[0]?.text ?? "")
      const { job, artifact, link } = result.structuredContent
      t.ok(["queued", "running"].includes(job.status), `still ${job.status}`)
      t.equal(artifact, null)
      t.equal(link, null)
      t.equal(job.provenance.channel, "mcp_v1")

      await run(stub.release("slow"))
      const ended = await until("the job ends", async () => {
        const { structuredContent } = await call(list, "get_job", { jobId: job.id })
        return structuredContent.job.status === "succeeded" ? structuredContent : undefined
      })
      t.equal(ended.job.entitlement.units, 1, "one unit, as any conversion")
      const linked = await call(list, "create_download_link", { artifactId: ended.artifact.id })
      t.not(linked.isError, true, linked.content[0]?.text ?? "")
      t.equal(linked.structuredContent.artifactId, ended.artifact.id)

      const replayed = await call(list, "convert_markdown", { markdown: "gate slow", idempotencyKey: "slow-convert-01" })
      t.equal(replayed.structuredContent.job.id, job.id, "a retry with the key is the same job")
    })

    await t.test(
      "a database that cannot be reached mid-call is service_unavailable, as REST answers it; any other fault internal_error",
      async (t) => {
        // The key is checked before the call (mcp/http.ts), so an outage met there is REST's 503
        // (test/http/database-outage.test.ts); this is one that begins after it.
        const failing = (defect: unknown): Tool =>
          tool({
            name: "failing",
            description: "fails",
            input: Schema.Struct({}),
            output: Schema.Struct({}),
            scopes: "documents.read",
            rateClass: "read",
            persists: false,
            run: () => Effect.die(defect)
          })
        const lost = Object.assign(new Error("connect ECONNREFUSED 10.0.0.7:5432"), { code: "ECONNREFUSED" })
        const away = await call([failing(lost)], "failing", {})
        t.equal(away.isError, true)
        const answer = JSON.parse(away.content[0]!.text).error
        t.match(answer, { code: "service_unavailable", retryable: true, details: { retryAfterSeconds: 2 } })
        t.notMatch(away.content[0]!.text, /ECONNREFUSED|10\.0\.0\.7|5432/, "nothing of the cause")
        const broken = await call([failing(new Error("a bug"))], "failing", {})
        t.match(JSON.parse(broken.content[0]!.text).error, { code: "internal_error" })
      }
    )
  })
)
