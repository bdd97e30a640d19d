/**
 * Claims are fair across owners (src/jobs/fair-claim.ts), on each database: with one owner's
 * heavy jobs queued, another owner's job is claimed next; with one slot, owners take turns; a
 * lone owner still gets every claim; a retry is not claimed before it is due; a claim keeps its
 * invariants (attempt, fencing token, first start). Then the supervisor end to end with the stub
 * renderer (test/helpers/stub-renderer.ts): while one owner holds every slot with renders and has
 * more queued, another owner's job starts at the next slot that frees, also when the slots belong
 * to two supervisors sharing one PostgreSQL database, each with its own platform and connection
 * pool (two runtimes in this one process: what separates them is their connections and the
 * database's locks; two real server processes are tested in test/documents/cluster.test.ts).
 */
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import pg from "pg"
import t from "tap"
import type { Principal } from "../../src/accounts/principal.ts"
import { Ledger } from "../../src/entitlements/ledger.ts"
import { type Claim, JobStore } from "../../src/jobs/job-store.ts"
import { admittedProvenance, Jobs } from "../../src/jobs/jobs.ts"
import { insertAccountWithKey } from "../helpers/accounts.ts"
import { forEachDatabase, type TestDatabase } from "../helpers/database.ts"
import { runtimeOf, stubPlatform } from "../helpers/platform.ts"
import type { TestContext } from "../helpers/tap.ts"

const spec = (markdown: string) => ({ markdown, templateId: "clean", locale: "en", options: {}, filename: "document.pdf" })

const LEASE_MS = 60_000

const failure = { category: "render", code: "rendering_failed", httpStatus: 422, message: "test", retryable: false } as const

t.test("the claim order", (t) =>
  forEachDatabase(t, async (t, database) => {
    // No supervisor: the test plays the slots, so it decides when a claim happens.
    const layer = Layer.mergeAll(JobStore.Default, Ledger.Default).pipe(Layer.provideMerge(database.layer))
    const run = runtimeOf(t, layer)

    const newOwner = () => run(Effect.map(Effect.orDie(insertAccountWithKey()), ({ accountId }) => accountId))

    /** Queues one job of `owner` per document, in order; returns their ids. */
    const queue = (owner: string, ...documents: ReadonlyArray<string>) =>
      run(
        Effect.forEach(documents, (markdown) =>
          Effect.gen(function* () {
            const principal: Principal = {
              accountId: owner,
              actor: { kind: "key", keyId: owner },
              plan: "monthly",
              scopes: new Set(["documents.render"])
            }
            const admission = {
              principal,
              purpose: "preview",
              channel: "rest_v1",
              spec: spec(markdown),
              requestSha256: "0".repeat(64)
            } as const
            const job = yield* (yield* JobStore).insert({
              id: randomUUID(),
              accountId: owner,
              documentId: null,
              revisionId: null,
              purpose: "preview",
              channel: "rest_v1",
              renderSpec: spec(markdown),
              requestSha256: "0".repeat(64),
              entitlement: yield* (yield* Ledger).snapshot(owner, 0),
              provenance: admittedProvenance(admission, "0".repeat(64))
            })
            return job.id
          })
        )
      )

    /** What the next slot claims: the document of the job, or none. */
    const claim = (slot = "slot") => run(Effect.flatMap(JobStore, (store) => store.claim(slot, LEASE_MS))).then(Option.getOrUndefined)
    const documentOf = (claimed: Claim | undefined) => claimed?.job.renderSpec.markdown
    const end = (claimed: Claim | undefined) => run(Effect.flatMap(JobStore, (store) => store.markEnded(claimed!, "failed", failure)))
    /** Ends every job still queued or running, so the next test starts with an empty queue. */
    const drain = () =>
      run(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`update jobs set status = 'cancelled' where status in ('queued', 'running')`).pipe(
          Effect.orDie
        )
      )

    await t.test("with one owner's heavy jobs queued, another owner's job is claimed next", async (t) => {
      const [heavy, light] = [await newOwner(), await newOwner()]
      await queue(heavy, "heavy 1", "heavy 2", "heavy 3", "heavy 4")
      // The heavy owner holds both slots of a two-worker process before the other owner arrives.
      t.same([documentOf(await claim()), documentOf(await claim())], ["heavy 1", "heavy 2"])
      await queue(light, "one line")
      t.equal(documentOf(await claim()), "one line", "the other owner's job goes before the heavy owner's queued ones")
      t.equal(documentOf(await claim()), "heavy 3", "then the heavy owner's queue resumes")
      await drain()
    })

    await t.test("an owner that arrives while another's queue is long is served at the first claim", async (t) => {
      const [heavy, light] = [await newOwner(), await newOwner()]
      await queue(heavy, "heavy 1", "heavy 2", "heavy 3")
      const first = await claim()
      await queue(light, "one line")
      t.equal(documentOf(first), "heavy 1")
      t.equal(documentOf(await claim()), "one line", "the owner holding nothing goes first")
      await drain()
    })

    await t.test("with one slot, owners with queued jobs take turns", async (t) => {
      const [a, b] = [await newOwner(), await newOwner()]
      await queue(a, "a 1", "a 2", "a 3")
      await queue(b, "b 1", "b 2")
      const order: Array<string | undefined> = []
      for (let i = 0; i < 5; i++) {
        const claimed = await claim()
        order.push(documentOf(claimed))
        await end(claimed)
      }
      t.same(order, ["a 1", "b 1", "a 2", "b 2", "a 3"], "the owner served longest ago goes next")
      await drain()
    })

    await t.test("a lone owner gets every claim (no slot waits while a job is due)", async (t) => {
      const owner = await newOwner()
      await queue(owner, "alone 1", "alone 2", "alone 3")
      const claims = [await claim(), await claim(), await claim()]
      t.same(claims.map(documentOf), ["alone 1", "alone 2", "alone 3"])
      t.equal(await claim(), undefined, "and nothing is left")
      await drain()
    })

    await t.test("a retry not yet due is not claimed, even for an owner holding nothing", async (t) => {
      const [busy, retrying] = [await newOwner(), await newOwner()]
      await queue(busy, "busy 1", "busy 2")
      const [later] = await queue(retrying, "retry later")
      await run(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`update jobs set next_attempt_at = now() + interval '1 hour' where id = ${later!}`
        ).pipe(Effect.orDie)
      )
      t.same([documentOf(await claim()), documentOf(await claim())], ["busy 1", "busy 2"])
      t.equal(await claim(), undefined, "the retry waits for its time")
      await drain()
    })

    await t.test("a claim counts the attempt, moves the fencing token, and keeps the first start", async (t) => {
      const owner = await newOwner()
      await queue(owner, "invariants")
      const first = (await claim("process one"))!
      t.match(first.job, { status: "running", attemptCount: 1 })
      t.equal(first.fencingToken, 1)
      t.ok(first.job.startedAt, "it started")
      t.ok(await run(Effect.flatMap(JobStore, (store) => store.requeue(first, 0))), "the attempt goes back to the queue")
      const second = (await claim("process two"))!
      t.match(second.job, { id: first.job.id, attemptCount: 2 })
      t.equal(second.fencingToken, 2)
      t.same(second.job.startedAt, first.job.startedAt, "startedAt is the first attempt's")
      await drain()
    })

    if (database.kind === "postgres") {
      await t.test("an owner whose due job another claimer has locked is passed over for the next owner", async (t) => {
        const [holding, waiting] = [await newOwner(), await newOwner()]
        await queue(holding, "held 1", "held 2")
        const [locked] = await queue(waiting, "locked")
        t.equal(documentOf(await claim()), "held 1")
        const other = new pg.Client({ connectionString: database.env.DATABASE_URL })
        await other.connect()
        t.teardown(() => other.end())
        await other.query("begin")
        await other.query("select id from jobs where id = $1 for update", [locked])
        t.equal(documentOf(await claim()), "held 2", "the slot takes another owner's job rather than wait")
        await other.query("rollback")
        t.equal(documentOf(await claim()), "locked")
        await drain()
      })
    }
  })
)

/** A supervisor in this test process: the platform over the stub renderer and `database`, in a runtime of its own. */
const startProcess = async (t: TestContext, database: TestDatabase, workers: number) => {
  const config = ConfigProvider.fromMap(
    new Map([
      ["PRESSROOM_RENDER_WORKERS", String(workers)],
      ["PRESSROOM_JOB_LEASE_MS", String(LEASE_MS)],
      // A failing test leaves gated renders behind: its teardown should not wait for them long.
      ["PRESSROOM_SHUTDOWN_GRACE_MS", "500"]
    ])
  )
  const { layer, stub } = await stubPlatform(database, config)
  const run = runtimeOf(t, layer)
  // The platform starts with the first effect run in it: start its supervisor now.
  await run(Effect.void)
  return { run, stub }
}

type Process = Awaited<ReturnType<typeof startProcess>>

/**
 * Owner A fills every slot with renders that hold until released and queues two more; owner B
 * then queues a one-line document; one of A's renders ends. Returns the documents of the jobs
 * in the order they started.
 */
const heavyOwnerThenLightOwner = async (processes: ReadonlyArray<Process>, slots: number) => {
  const [first] = processes
  const newOwner = () =>
    first!.run(
      Effect.map(
        Effect.orDie(insertAccountWithKey()),
        ({ accountId }): Principal => ({
          accountId,
          actor: { kind: "key", keyId: accountId },
          plan: "monthly",
          scopes: new Set(["documents.render"])
        })
      )
    )
  const admit = (principal: Principal, markdown: string) =>
    first!.run(
      Effect.flatMap(Jobs, (jobs) =>
        jobs.admitAndAwait(
          Effect.succeed({
            principal,
            purpose: "preview",
            channel: "rest_v1",
            spec: spec(markdown),
            requestSha256: "0".repeat(64)
          } as const),
          "1 millis",
          () => Effect.void
        )
      )
    )
  const [heavy, light] = [await newOwner(), await newOwner()]
  const started = () =>
    first!.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ markdown: string }>`
          select render_request->>'markdown' as markdown from jobs
          where account_id in (${heavy.accountId}, ${light.accountId}) and started_at is not null order by started_at`
      ).pipe(Effect.orDie)
    )
  const waitForStarted = async (count: number) => {
    for (let i = 0; i < 600; i++) {
      const rows = await started()
      if (rows.length >= count) return rows.map((row) => row.markdown)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`fewer than ${count} jobs started`)
  }
  const releaseAll = (names: ReadonlyArray<string>) =>
    Promise.all(processes.flatMap(({ run, stub }) => names.map((name) => run(stub.release(name)))))

  const heavyNames = Array.from({ length: slots + 2 }, (_, i) => `a${i + 1}`)
  for (const name of heavyNames) await admit(heavy, `gate ${name}`)
  await waitForStarted(slots)
  await admit(light, "one line")
  await releaseAll(["a1"])
  await waitForStarted(slots + 1)
  await releaseAll(heavyNames)
  return waitForStarted(heavyNames.length + 1)
}

t.test("the supervisor", (t) =>
  forEachDatabase(t, async (t, database) => {
    await t.test("another owner's job starts at the first slot that frees, before the busy owner's queued jobs", async (t) => {
      const order = await heavyOwnerThenLightOwner([await startProcess(t, database, 2)], 2)
      t.equal(order[2], "one line", "the one-line document started third, before a3 and a4")
    })

    if (database.kind === "postgres") {
      await t.test("also when the slots are two supervisors, each with its own connections, sharing the database", async (t) => {
        const processes = [await startProcess(t, database, 1), await startProcess(t, database, 1)]
        const order = await heavyOwnerThenLightOwner(processes, 2)
        t.equal(order[2], "one line", "the one-line document started third, before a3 and a4")
      })
    }
  })
)
