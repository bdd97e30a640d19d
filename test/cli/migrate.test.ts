/**
 * `pressroom migrate` as an operator runs it: a fresh database gets every migration, a second run
 * finds nothing to do, and the server then starts on it and keeps its data across a restart; an
 * empty `DATABASE_URL=` is no connection string but the embedded database.
 */
import t from "tap"
import { childEnv } from "../helpers/child-env.ts"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { createAccount, usageOf } from "../helpers/api.ts"
import { databaseKinds, freshDatabase } from "../helpers/database.ts"
import { BASELINE_WASM_ONLY, startServer } from "../helpers/server.ts"

const migrate = (env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [...BASELINE_WASM_ONLY, join(packageRoot, "bin", "pressroom.js"), "migrate"],
      { env: childEnv(env) },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr })
    )
  })

const migrations = readdirSync(join(packageRoot, "migrations"))
  .map((file) => /^(\d+)_(.+)\.sql$/.exec(file))
  .filter((match) => match !== null)
  .map((match) => ({ id: Number(match[1]), name: match[2] }))
  .sort((a, b) => a.id - b.id)

t.test("embedded database: migrate, migrate again, then serve across a restart", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "pressroom-migrate-"))
  const first = await migrate({ PRESSROOM_DATA_DIR: dataDir })
  t.equal(first.code, 0, first.stderr)
  t.same(JSON.parse(first.stdout), { applied: migrations }, "every migration applied, in order")
  const second = await migrate({ PRESSROOM_DATA_DIR: dataDir })
  t.same(JSON.parse(second.stdout), { applied: [] }, "nothing left to apply")

  const server = await startServer(t, { PRESSROOM_DATA_DIR: dataDir })
  const account = await createAccount(server)
  await server.stop()
  const restarted = await startServer(t, { PRESSROOM_DATA_DIR: dataDir })
  t.equal((await usageOf(restarted, account.accountId)).used, 0, "the account survived the restart")
})

t.test("an empty DATABASE_URL= (as .env files and shells leave it) means the embedded database", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "pressroom-migrate-"))
  const run = await migrate({ DATABASE_URL: "", PRESSROOM_DATA_DIR: dataDir })
  t.equal(run.code, 0, run.stderr)
  t.same(JSON.parse(run.stdout), { applied: migrations }, "every migration applied")
  t.ok(existsSync(join(dataDir, "db")), "to PGlite in PRESSROOM_DATA_DIR")
})

if (databaseKinds.includes("postgres")) {
  t.test("PostgreSQL: migrate applies the same migrations", async (t) => {
    const database = await freshDatabase("postgres")
    t.teardown(database.drop)
    // freshDatabase migrates already: a run finds nothing to do and succeeds.
    const run = await migrate({ DATABASE_URL: database.env.DATABASE_URL! })
    t.equal(run.code, 0, run.stderr)
    t.same(JSON.parse(run.stdout), { applied: [] })
  })
}
