/**
 * `pressroom audit` as an operator runs it: a v1 conversion (and the same again, reused by its
 * manifest, which the audit still renders) and v2 publications made by a real
 * server, the server stopped (the embedded database is one process's), then the jobs rendered again
 * by the command on the same database and artifact store. Every check matches; altered stored
 * bytes, expired bytes, a document deleted with its source and an unknown job are reported with
 * exit code 1, a malformed id with 2. Rendered again by the other engine, checked on the embedded
 * database only: the engines' bytes do not depend on it.
 */
import t from "tap"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { randomUUID } from "node:crypto"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { convert, createAccount } from "../helpers/api.ts"
import { childEnv } from "../helpers/child-env.ts"
import { forEachDatabase, runWith, type TestDatabase } from "../helpers/database.ts"
import { PNG_1x1, serverEngine } from "../helpers/render.ts"
import { startServer, v8FlagsFor } from "../helpers/server.ts"
import { mutate, newDocument, publish } from "../helpers/v2.ts"

const bin = join(packageRoot, "bin", "pressroom.js")

const CHECKS = [
  "rendererVersion",
  "sourceSha256",
  "optionsSha256",
  "renderOptionsSha256",
  "templateDefinitionSha256",
  "templateReleaseSha256",
  "fontSetSha256",
  "assetSetSha256",
  "catalogSha256",
  "manifestSha256",
  "rendererReleaseChecksum",
  "storedBytesSha256",
  "renderedBytesSha256"
]

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const audit = (env: Record<string, string>, args: ReadonlyArray<string>): Promise<Run> => {
  const { DATABASE_URL: _url, PRESSROOM_DATA_DIR: _dir, ...inherited } = childEnv()
  return new Promise((resolve) => {
    // The server's engine unless the test names another: audit renders with the engine it is given.
    const engine = env.PRESSROOM_RENDER_ENGINE ?? serverEngine
    execFile(
      process.execPath,
      [...v8FlagsFor(engine), bin, "audit", ...args],
      { cwd: packageRoot, env: { ...inherited, ...env, PRESSROOM_RENDER_ENGINE: engine } },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
    )
  })
}

const query = <A extends object>(database: TestDatabase, run: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  runWith(database, Effect.orDie(Effect.flatMap(SqlClient.SqlClient, run)))

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, database.env)
  const owner = await createAccount(server)
  const conversion = {
    markdown: `# Audited\n\nA report with a picture.\n\n![dot](data:image/png;base64,${PNG_1x1})\n`,
    templateId: "executive",
    locale: "de",
    options: { pageNumbers: true, bodyTextColor: "#112233" }
  }
  const converted = await convert(server, owner.key, conversion)
  t.equal(converted.status, 200)
  // Sent again, it reuses the first's bytes (same manifest): no render of its own to compare with.
  t.equal((await convert(server, owner.key, conversion)).status, 200)
  // Two v2 publications: one of a document that stays, one of a document deleted afterwards.
  const kept = await newDocument(server, owner.key, {
    markdown: "# Kept\n\nA revision to audit.",
    spec: { templateId: "academic", locale: "fr" }
  })
  const keptJob = (await publish(server, owner.key, kept.documentId, kept.revisionId)).body.job
  const gone = await newDocument(server, owner.key, { markdown: "# Gone\n\nDeleted after its publication." })
  const goneJob = (await publish(server, owner.key, gone.documentId, gone.revisionId)).body.job
  t.equal(keptJob.status, "succeeded")
  t.equal(goneJob.status, "succeeded")
  t.equal((await mutate(server, "DELETE", `/api/v2/documents/${gone.documentId}`, owner.key)).status, 202)
  await server.stop()

  // The database and the artifact files the server used (on PostgreSQL the files are in its own folder).
  const env = { ...database.env, PRESSROOM_DATA_DIR: server.dataDir }
  const [job, reused] = await query<{ id: string; storage_key: string }>(
    database,
    (sql) =>
      sql`select jobs.id, artifacts.storage_key from jobs join artifacts on artifacts.id = jobs.artifact_id
          where jobs.channel = 'rest_v1' order by jobs.completed_at`
  )
  const jobId = job!.id

  // One process for several jobs: the database opened and the compiler started once.
  const unknown = randomUUID()

  await t.test("several jobs in one run, as JSON: one object per line, in the order given", async (t) => {
    t.equal(reused!.storage_key, job!.storage_key, "the reused conversion shares the first one's bytes")
    const run = await audit(env, [jobId, reused!.id, keptJob.id, goneJob.id, unknown, "--json"])
    t.equal(run.code, 1, "two of the five cannot be checked")
    t.equal(run.stderr, "", "the reasons are in the JSON")
    const reports = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
    t.same(
      reports.map((report) => report.jobId),
      [jobId, reused!.id, keptJob.id, goneJob.id, unknown]
    )
    const [first, reusedReport, v2Report, goneReport, unknownReport] = reports
    for (const [what, report] of [
      ["the conversion", first],
      ["the conversion reused by its manifest, rendered again all the same", reusedReport],
      ["a v2 publication, rendered again from its revision", v2Report]
    ] as const) {
      t.match(report, { match: true }, what)
      t.notOk("reason" in report, what)
      t.same(
        report.checks.map((check: { name: string }) => check.name),
        CHECKS,
        what
      )
      for (const check of report.checks) t.ok(check.match && check.recorded === check.actual, `${what}: ${check.name}`)
    }
    t.match(goneReport, { match: false, reason: new RegExp(`^source gone: the source of revision ${gone.revisionId} was deleted`) })
    t.notOk(
      goneReport.checks.some((check: { name: string }) => check.name === "manifestSha256"),
      "a job whose document was deleted: nothing is rendered"
    )
    t.same(unknownReport, { jobId: unknown, match: false, checks: [], reason: `no job ${unknown}` })
  })

  await t.test("several jobs in one run, as text: each block opens with its job, each reason names it", async (t) => {
    const run = await audit(env, [jobId, keptJob.id, goneJob.id, unknown])
    t.equal(run.code, 1)
    const blocks = run.stdout.split(/^(?=job )/m)
    t.equal(blocks.length, 4, run.stdout)
    const lines = blocks[0]!.trim().split("\n")
    t.equal(lines[0], `job ${jobId}`)
    // A job rendered again matches, check by check.
    for (const name of CHECKS) {
      const line = new RegExp(`^${name} +match +([0-9a-f]{64}|null|pressroom .+)$`)
      t.ok(
        lines.some((text) => line.test(text)),
        name
      )
    }
    t.equal(lines.at(-1), "every check matches")
    t.match(blocks[1], new RegExp(`^job ${keptJob.id}\n(.+ match .+\n)+every check matches\n$`))
    t.match(blocks[2], new RegExp(`^job ${goneJob.id}\n`))
    t.notMatch(blocks[2], /manifestSha256/, "the job whose document was deleted: nothing is rendered")
    t.equal(blocks[3], `job ${unknown}\n`, "an unknown job: no checks")
    const reasons = run.stderr.split("\n")
    t.match(
      reasons[0],
      new RegExp(`^pressroom audit: job ${goneJob.id}: source gone: the source of revision ${gone.revisionId} was deleted`)
    )
    t.equal(reasons[1], `pressroom audit: job ${unknown}: no job ${unknown}`)
    t.equal(reasons.length, 3, "one line per job that cannot be checked")
  })

  // The other engine's render does not depend on the database: checked once, on the embedded one, which every run has.
  if (database.kind === "pglite")
    await t.test("rendered again by the other engine, the job matches; the binary differs as information", async (t) => {
      const other = serverEngine === "native" ? "wasm" : "native"
      const run = await audit({ ...env, PRESSROOM_RENDER_ENGINE: other }, [jobId])
      t.equal(run.code, 0, run.stderr)
      t.match(run.stdout, /^renderedBytesSha256 +match/m, "the same bytes")
      t.match(run.stdout, /^manifestSha256 +match/m, "the same manifest")
      t.match(run.stdout, /^rendererReleaseChecksum +differs .*\(information/m, "another binary, reported as information")
      t.equal(run.stdout.trim().split("\n").at(-1), "every check matches")
    })

  await t.test("altered stored bytes differ from the recorded and the re-rendered ones", async (t) => {
    const file = join(server.dataDir, "artifacts", job!.storage_key)
    const altered = Buffer.from(converted.pdf!)
    altered[altered.length - 2]! ^= 1
    if (existsSync(file)) writeFileSync(file, altered)
    // A database-backed store (PostgreSQL) holds the bytes in artifact_blobs instead.
    else await query(database, (sql) => sql`update artifact_blobs set bytes = ${altered} where key = ${job!.storage_key} returning key`)

    const run = await audit(env, [jobId])
    t.equal(run.code, 1, run.stderr)
    t.match(run.stdout, /^storedBytesSha256 +DIFFERS +recorded [0-9a-f]{64}, now [0-9a-f]{64}$/m)
    t.match(run.stdout, /^renderedBytesSha256 +match/m, "the render still gives the recorded bytes")
    t.match(run.stdout, /^1 differ: storedBytesSha256$/m)

    const report = JSON.parse((await audit(env, [jobId, "--json"])).stdout)
    t.equal(report.match, false)
    t.same(
      report.checks.filter((check: { match: boolean }) => !check.match).map((check: { name: string }) => check.name),
      ["storedBytesSha256"]
    )
  })

  await t.test("expired bytes are reported as gone", async (t) => {
    await query(database, (sql) => sql`update artifacts set status = 'expired' where job_id = ${jobId} returning id`)
    const run = await audit(env, [jobId])
    t.equal(run.code, 1)
    t.match(run.stderr, /^pressroom audit: the artifact expired at .+: its bytes are gone\n$/)
    t.match(run.stdout, /^storedBytesSha256 +DIFFERS +recorded [0-9a-f]{64}, now null$/m)
  })

  await t.test("a malformed id, among good ones or alone, and a missing one are usage errors: nothing is audited", async (t) => {
    const malformed = await audit(env, [jobId, "not-a-job"])
    t.equal(malformed.code, 2)
    t.equal(malformed.stdout, "", "not even the good id's checks")
    t.match(malformed.stderr, /jobId must be a uuid, got 'not-a-job'/)
    t.equal((await audit(env, ["not-a-job"])).code, 2)
    t.equal((await audit(env, [])).code, 2)
  })
})
