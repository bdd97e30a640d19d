/**
 * npm run bench:claim — what the claim statement costs (src/jobs/fair-claim.ts) with a long queue
 * (10,000 queued jobs across 100 owners, half of them one owner's) and a short one, over 50,000
 * ended jobs of history and 8 running, against first come, first served, the claim it replaced. Each claim runs
 * in a transaction rolled back, so every round sees the same queue. On PGlite in a temporary
 * folder; on PostgreSQL too with `PRESSROOM_BENCH_DATABASE_URL` (a server where the user may
 * create databases: a scratch database is made and dropped). Prints a Markdown table of medians.
 */
import { SqlClient } from "@effect/sql"
import { Effect, type Layer, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { migrate } from "../src/db/migrator.ts"
import * as PgliteClient from "../src/db/pglite-client.ts"
import * as PostgresClient from "../src/db/pg-client.ts"
import { claimFairly } from "../src/jobs/fair-claim.ts"
import { median } from "./stats.ts"

const ROUNDS = 200
const ENDED = 50_000

/** A long queue, and the queue of a quiet day. */
const SCENARIOS = [
  { owners: 100, queued: 10_000 },
  { owners: 4, queued: 20 }
] as const

const owner = (n: string) => `('00000000-0000-0000-0000-' || lpad((${n})::text, 12, '0'))::uuid`

const seed = ({ owners, queued }: (typeof SCENARIOS)[number]) => [
  "delete from jobs",
  "delete from accounts",
  `insert into accounts (id, name, plan) select ${owner("i")}, 'owner ' || i, 'monthly' from generate_series(1, ${owners}) i`,
  // Half the queue is owner 1's; the other owners share the rest.
  `insert into jobs (id, account_id, purpose, channel, status, render_request, request_sha256, entitlement, provenance,
                     accepted_at, queued_at, next_attempt_at)
   select gen_random_uuid(), ${owner(`case when i <= ${queued / 2} then 1 else 2 + i % ${owners - 1} end`)}, 'final', 'rest_v1',
          'queued', '{}', repeat('0', 64), '{}', '{}', now() - (${queued} - i) * interval '1 ms', now(),
          now() - (${queued} - i) * interval '1 ms'
   from generate_series(1, ${queued}) i`,
  `insert into jobs (id, account_id, purpose, channel, status, render_request, request_sha256, entitlement, provenance,
                     accepted_at, started_at, completed_at)
   select gen_random_uuid(), ${owner(`1 + i % ${owners}`)}, 'final', 'rest_v1', 'succeeded', '{}', repeat('0', 64), '{}', '{}',
          now() - interval '1 day' + i * interval '1 ms', now() - interval '1 day' + i * interval '1 ms', now()
   from generate_series(1, ${ENDED}) i`,
  `insert into jobs (id, account_id, purpose, channel, status, render_request, request_sha256, entitlement, provenance,
                     accepted_at, started_at, lease_expires_at, attempt_count, fencing_token)
   select gen_random_uuid(), ${owner("case when i <= 6 then 1 else 2 end")}, 'final', 'rest_v1', 'running', '{}', repeat('0', 64),
          '{}', '{}', now(), now(), now() + interval '15 s', 1, 1
   from generate_series(1, 8) i`,
  "analyze jobs"
]

/** The claim before fair claims, for comparison. */
const firstComeFirstServed = (sql: SqlClient.SqlClient) => sql`
  update jobs set status = 'running', attempt_count = attempt_count + 1, fencing_token = fencing_token + 1,
                  lease_owner = 'bench', lease_expires_at = now() + interval '15 s', started_at = coalesce(started_at, now())
  where id = (select id from jobs where status = 'queued' and next_attempt_at <= now()
              order by next_attempt_at, accepted_at limit 1 for update skip locked)
  returning *`

class Rollback {
  readonly _tag = "Rollback"
}

const measure = (database: string, layer: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* migrate
    const time = (claim: Effect.Effect<unknown, unknown>) =>
      Effect.gen(function* () {
        // Rolled back, so that every round claims from the same queue.
        const once = sql.withTransaction(Effect.zipRight(claim, Effect.fail(new Rollback()))).pipe(Effect.ignore)
        for (let i = 0; i < 20; i++) yield* once
        const times: Array<number> = []
        for (let i = 0; i < ROUNDS; i++) {
          const start = performance.now()
          yield* once
          times.push(performance.now() - start)
        }
        return median(times)
      })
    for (const scenario of SCENARIOS) {
      for (const statement of seed(scenario)) yield* sql.unsafe(statement)
      const fair = yield* time(claimFairly(sql, "bench", 15_000))
      const fifo = yield* time(firstComeFirstServed(sql))
      const queue = `${scenario.queued} queued, ${scenario.owners} owners`
      console.log(`| ${database} | ${queue} | ${fair.toFixed(2)} ms | ${fifo.toFixed(2)} ms |`)
    }
  }).pipe(Effect.provide(layer), Effect.orDie)

console.log(`\nOne claim, ${ENDED} ended jobs and 8 running, median of ${ROUNDS}, ${new Date().toISOString().slice(0, 10)}\n`)
console.log("| database | queue | fair claim | first come, first served |")
console.log("|---|---|--:|--:|")

const folder = mkdtempSync(join(tmpdir(), "pressroom-bench-claim-"))
try {
  await Effect.runPromise(measure("PGlite", PgliteClient.layer({ dataDir: folder })))
} finally {
  rmSync(folder, { recursive: true, force: true })
}

const serverUrl = process.env.PRESSROOM_BENCH_DATABASE_URL
if (serverUrl) {
  const name = `pressroom_bench_claim_${Date.now().toString(36)}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  try {
    const url = new URL(serverUrl)
    url.pathname = `/${name}`
    await Effect.runPromise(measure("PostgreSQL", PostgresClient.layer(Redacted.make(url.toString()))))
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.end()
  }
}
