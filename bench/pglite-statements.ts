/**
 * npm run bench:db — one statement on the embedded database, through `PGlite.query` (parse, plan
 * and describe on every call) and through the prepared-statement runner the SQL client uses
 * (`src/db/pglite-statements.ts`), in one process, on a data directory on disk. Prints a Markdown
 * table of medians for docs/performance.md.
 */
import { PGlite } from "@electric-sql/pglite"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makePreparedStatements } from "../src/db/pglite-statements.ts"
import { median } from "./stats.ts"

const ROUNDS = 2000

const dataDir = mkdtempSync(join(tmpdir(), "pressroom-bench-db-"))
const db = await PGlite.create({ dataDir })
const prepared = makePreparedStatements(db)
try {
  await db.exec("create table items (id uuid primary key, n int not null, label text not null, at timestamptz not null default now())")
  const ids = Array.from({ length: 1000 }, () => randomUUID())
  for (const [n, id] of ids.entries()) await db.query("insert into items (id, n, label) values ($1, $2, $3)", [id, n, `item ${n}`])

  type Run = (text: string, params: Array<unknown>) => Promise<unknown>
  const viaQuery: Run = (text, params) => db.query(text, params)
  const viaPrepared: Run = (text, params) => prepared(text, params, "object")

  const time = async (body: (i: number) => Promise<unknown>) => {
    for (let i = 0; i < 200; i++) await body(i) // warm-up
    const times: Array<number> = []
    for (let i = 0; i < ROUNDS; i++) {
      const start = performance.now()
      await body(i)
      times.push(performance.now() - start)
    }
    return median(times)
  }

  const cases: ReadonlyArray<[string, (run: Run) => (i: number) => Promise<unknown>]> = [
    ["one-row select by primary key", (run) => (i) => run("select * from items where id = $1", [ids[i % ids.length]])],
    ["insert of one row", (run) => (i) => run("insert into items (id, n, label) values ($1, $2, $3)", [randomUUID(), i, `new ${i}`])],
    [
      "transaction: update, select, insert",
      (run) => async (i) => {
        await db.exec("begin")
        await run("update items set n = n + 1 where id = $1", [ids[i % ids.length]])
        await run("select n from items where id = $1", [ids[i % ids.length]])
        await run("insert into items (id, n, label) values ($1, $2, $3)", [randomUUID(), i, "txn"])
        await db.exec("commit")
      }
    ]
  ]

  console.log(`\nPGlite statements, median of ${ROUNDS}, ${new Date().toISOString().slice(0, 10)}\n`)
  console.log("| statement | PGlite.query | prepared | query / prepared |")
  console.log("|---|--:|--:|--:|")
  for (const [name, make] of cases) {
    const query = await time(make(viaQuery))
    const fast = await time(make(viaPrepared))
    console.log(`| ${name} | ${query.toFixed(2)} ms | ${fast.toFixed(2)} ms | ${(query / fast).toFixed(2)}x |`)
  }
} finally {
  await db.close()
  rmSync(dataDir, { recursive: true, force: true })
}
