/**
 * The embedded database's SQL client runs statements with parameters as prepared statements. What
 * a caller sees must not change with that: the same values as PGlite's own `query` for every type
 * the service stores, errors that keep their PostgreSQL codes, transactions that commit and roll
 * back, more distinct statements than the cache keeps, and a statement whose table changed shape
 * after it was prepared (run again outside a transaction; reported inside one, which it aborts).
 */
import { PGlite } from "@electric-sql/pglite"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t from "tap"
import * as PgliteClient from "../../src/db/pglite-client.ts"
import type { TestContext } from "../helpers/tap.ts"

const CREATE_TABLE = `create table items (
  id uuid primary key, n int, big bigint, ratio float8, flag boolean, label text,
  body jsonb, at timestamptz, day date, bytes bytea
)`

// One client for the file, as a process has one: each test works on tables of its own, and what
// one test leaves in the statement cache is there for the next, as in a server. (Creating the
// database is most of the cost: a fresh cluster per test took five of its six seconds.)
const dataDir = mkdtempSync(join(tmpdir(), "pressroom-pglite-"))
const runtime = ManagedRuntime.make(PgliteClient.layer({ dataDir }).pipe(Layer.orDie))
t.teardown(async () => {
  await runtime.dispose()
  rmSync(dataDir, { recursive: true, force: true })
})

const sql = <A, R>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown, R>) => Effect.flatMap(SqlClient.SqlClient, f)

t.test("rows read back as PGlite's own query reads them, for every stored type", async (t) => {
  const reference = await PGlite.create()
  await reference.exec(CREATE_TABLE)
  await runtime.runPromise(sql((sql) => sql.unsafe(CREATE_TABLE)))
  const rows = [
    [
      "0e6c7c36-5d3b-4a43-9f0e-3b0f4d4b2a11",
      7,
      "9007199254740993",
      0.25,
      true,
      "plain",
      JSON.stringify({ a: [1, "x"], b: null }),
      new Date("2026-11-22T10:00:00.123Z"),
      "2026-11-01",
      new Uint8Array([0, 1, 254, 255])
    ],
    ["2f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9", null, null, null, false, "quote ' and \\ backslash", JSON.stringify("text"), null, null, null]
  ] as const
  const insert =
    "insert into items (id, n, big, ratio, flag, label, body, at, day, bytes) values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10)"
  for (const row of rows) {
    await reference.query(insert, [...row])
    await runtime.runPromise(sql((sql) => sql.unsafe(insert, [...row])))
  }
  const select = "select * from items where id = any($1::uuid[]) order by id"
  const ids = rows.map((row) => row[0])
  const expected = (await reference.query(select, [ids])).rows
  const actual = await runtime.runPromise(sql((sql) => sql.unsafe(select, [ids])))
  t.same(actual, expected)
  t.equal(actual.length, 2)
  t.same((actual[0] as any).body, { a: [1, "x"], b: null })
  t.same((actual[0] as any).at, new Date("2026-11-22T10:00:00.123Z"))
  // The same statement again runs from the cache and still answers for its own parameters.
  const one = await runtime.runPromise(sql((sql) => sql.unsafe(select, [[ids[1]]])))
  t.same(one, [expected[1]])
  await reference.close()
})

t.test("errors keep their PostgreSQL code, and a failed statement does not poison the next run", async (t) => {
  await runtime.runPromise(sql((sql) => sql.unsafe("create table keys (k text primary key)")))
  const insert = (key: string) => sql((sql) => sql.unsafe("insert into keys (k) values ($1)", [key]))
  await runtime.runPromise(insert("a"))
  const duplicate = await runtime.runPromise(Effect.flip(insert("a")))
  t.equal((duplicate as any).cause?.code, "23505", "unique violation")
  await runtime.runPromise(insert("b"))
  const syntax = await runtime.runPromise(Effect.flip(sql((sql) => sql.unsafe("selec $1", [1]))))
  t.equal((syntax as any).cause?.code, "42601", "syntax error")
  t.same(await runtime.runPromise(sql((sql) => sql.unsafe("select k from keys order by k"))), [{ k: "a" }, { k: "b" }])
})

t.test("transactions commit and roll back prepared statements' writes", async (t) => {
  await runtime.runPromise(sql((sql) => sql.unsafe("create table log (n int)")))
  const write = (n: number) => sql((sql) => sql.unsafe("insert into log (n) values ($1)", [n]))
  await runtime.runPromise(sql((sql) => sql.withTransaction(Effect.zipRight(write(1), write(2)))))
  await runtime.runPromise(Effect.ignore(sql((sql) => sql.withTransaction(Effect.zipRight(write(3), Effect.fail("abort"))))))
  t.same(await runtime.runPromise(sql((sql) => sql.unsafe("select n from log where n > $1 order by n", [0]))), [{ n: 1 }, { n: 2 }])
})

t.test("more distinct statements than the cache holds all run, again and again", async (t) => {
  const answers = await runtime.runPromise(
    Effect.forEach(
      Array.from({ length: 600 }, (_, i) => i % 300),
      (i) => sql((sql) => sql.unsafe(`select $1::int + ${i} as answer`, [1]))
    )
  )
  t.same(
    answers.map((rows) => (rows[0] as any).answer),
    Array.from({ length: 600 }, (_, i) => 1 + (i % 300))
  )
})

/** Prepares a select on a new one-column table `table`, then adds a column: the prepared plan is stale. */
const staleSelect = async (t: TestContext, table: string) => {
  const select = sql((sql) => sql.unsafe(`select * from ${table} where id = $1`, [1]))
  await runtime.runPromise(sql((sql) => sql.unsafe(`create table ${table} (id int)`)))
  await runtime.runPromise(sql((sql) => sql.unsafe(`insert into ${table} (id) values ($1)`, [1])))
  t.same(await runtime.runPromise(select), [{ id: 1 }])
  await runtime.runPromise(sql((sql) => sql.unsafe(`alter table ${table} add column label text default 'new'`)))
  return select
}

t.test("a statement prepared before its table changed shape runs with the new shape", async (t) => {
  const select = await staleSelect(t, "shapes")
  t.same(await runtime.runPromise(select), [{ id: 1, label: "new" }])
})

t.test("inside a transaction a stale plan fails the transaction, and the statement is prepared afresh after", async (t) => {
  const select = await staleSelect(t, "shapes_in_transaction")
  const failure = await runtime.runPromise(Effect.flip(sql((sql) => sql.withTransaction(select))))
  t.equal((failure as any).cause?.code, "0A000", "the stale plan's own error, not an aborted transaction's")
  t.same(await runtime.runPromise(select), [{ id: 1, label: "new" }])
})
