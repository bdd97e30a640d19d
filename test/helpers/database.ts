/**
 * The databases a test runs against: embedded PGlite always, and PostgreSQL too when
 * `PRESSROOM_TEST_DATABASE_URL` names a server (a connection string whose user may create
 * databases). Each test gets a fresh, migrated database of its own.
 */
import type { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { migrate } from "../../src/db/migrator.ts"
import type { Notifications } from "../../src/db/notifications.ts"
import * as PgliteClient from "../../src/db/pglite-client.ts"
import * as PostgresClient from "../../src/db/pg-client.ts"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import type { TestContext } from "./tap.ts"

export const postgresServerUrl = process.env.PRESSROOM_TEST_DATABASE_URL

export type DatabaseKind = "pglite" | "postgres"

export interface TestDatabase {
  readonly kind: DatabaseKind
  /** Environment for a server process on this database (`DATABASE_URL` or `PRESSROOM_DATA_DIR`). */
  readonly env: Readonly<Record<string, string>>
  /** The migrated database as a layer, for in-process tests (PGlite: the same files as `env`; close it before a server opens them). */
  readonly layer: Layer.Layer<SqlClient.SqlClient | Notifications>
}

const migrationsHash = createHash("sha256")
  .update(
    readdirSync(join(packageRoot, "migrations"))
      .sort()
      .map((f) => readFileSync(join(packageRoot, "migrations", f), "utf8"))
      .join("\0")
  )
  .digest("hex")
  .slice(0, 16)

/**
 * A migrated PGlite data folder, made once per migration set and copied for each test: creating a
 * PGlite database takes seconds, copying one a few milliseconds.
 */
const pgliteTemplate = async (): Promise<string> => {
  const cache = join(packageRoot, "node_modules", ".cache", "pressroom-test", `pglite-${migrationsHash}`)
  if (existsSync(cache)) return cache
  const building = `${cache}.${process.pid}.${randomBytes(4).toString("hex")}`
  mkdirSync(building, { recursive: true })
  await Effect.runPromise(
    Effect.scoped(
      Layer.build(PgliteClient.layer({ dataDir: building })).pipe(
        Effect.flatMap((context) => Effect.provide(Effect.orDie(migrate), context))
      )
    )
  )
  try {
    renameSync(building, cache)
  } catch {
    rmSync(building, { recursive: true, force: true }) // another test file made it first
  }
  return cache
}

const freshPglite = async (): Promise<TestDatabase & { drop: () => Promise<void> }> => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "pressroom-test-")), "data")
  cpSync(await pgliteTemplate(), join(dataDir, "db"), { recursive: true })
  return {
    kind: "pglite",
    env: { PRESSROOM_DATA_DIR: dataDir },
    layer: PgliteClient.layer({ dataDir: join(dataDir, "db") }).pipe(Layer.orDie),
    drop: async () => rmSync(join(dataDir, ".."), { recursive: true, force: true })
  }
}

const freshPostgres = async (serverUrl: string): Promise<TestDatabase & { drop: () => Promise<void> }> => {
  const name = `pressroom_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const layer = PostgresClient.layer(Redacted.make(url.toString())).pipe(Layer.orDie)
  const runtime = ManagedRuntime.make(layer)
  await runtime.runPromise(Effect.orDie(migrate))
  await runtime.dispose()
  return {
    kind: "postgres",
    env: { DATABASE_URL: url.toString() },
    layer,
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      await client.query(`drop database if exists ${name} with (force)`)
      await client.end()
    }
  }
}

export const databaseKinds: ReadonlyArray<DatabaseKind> = postgresServerUrl ? ["pglite", "postgres"] : ["pglite"]

/** A fresh database of `kind`; PostgreSQL ones are made on `serverUrl`, by default the test server's. */
export const freshDatabase = (kind: DatabaseKind, serverUrl = postgresServerUrl) => {
  if (kind === "pglite") return freshPglite()
  if (!serverUrl) throw new Error("no PostgreSQL server URL: set PRESSROOM_TEST_DATABASE_URL")
  return freshPostgres(serverUrl)
}

/** Runs `body` once per available database, each in a subtest with a fresh database dropped afterwards. */
export const forEachDatabase = async (t: TestContext, body: (t: TestContext, database: TestDatabase) => Promise<void>): Promise<void> => {
  if (!postgresServerUrl) t.comment("PRESSROOM_TEST_DATABASE_URL is not set: PostgreSQL runs skipped, PGlite only")
  for (const kind of databaseKinds) {
    await t.test(kind, async (t) => {
      const database = await freshDatabase(kind)
      t.teardown(database.drop)
      await body(t, database)
    })
  }
}

/** Runs one effect against a database layer, for tests that look at rows directly. */
export const runWith = <A, E>(database: TestDatabase, effect: Effect.Effect<A, E, SqlClient.SqlClient | Notifications>): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.provide(effect, database.layer)))
