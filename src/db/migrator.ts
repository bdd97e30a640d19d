/**
 * The numbered SQL files of `migrations/` (`0001_platform.sql`), applied in order by
 * `@effect/sql`'s Migrator at start and by `pressroom migrate`. Processes starting together on one
 * PostgreSQL serialise on the migrator's table lock; the losers find the work done.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { Effect, Schema } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { packageRoot } from "../render/fonts/manifest.ts"

const migrationsDir = join(packageRoot, "migrations")

const loader: Migrator.Loader = Effect.sync(() =>
  readdirSync(migrationsDir)
    .flatMap((file) => {
      const match = /^(\d+)_(.+)\.sql$/.exec(file)
      if (!match) return []
      const migration: Migrator.ResolvedMigration = [
        Number(match[1]),
        match[2]!,
        Effect.succeed(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(readFileSync(join(migrationsDir, file), "utf8"))))
      ]
      return [migration]
    })
    .sort(([a], [b]) => a - b)
)

const run = Migrator.make({})({ loader, table: "pressroom_migrations" })

/** Applies pending migrations; returns those applied. Retried once for the race of two processes creating the migrations table. */
export const migrate = run.pipe(Effect.retry({ times: 1 }))

/** The id of the newest migration this build has. */
export const latestMigrationId = Effect.map(loader, (all) => all.at(-1)?.[0] ?? 0)

/** Whether the database has every migration up to `latest` (for `/readyz`). */
export const migrationsApplied = (latest: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const applied = SqlSchema.single({
      Request: Schema.Void,
      Result: Schema.Struct({ latest: Schema.NullOr(Schema.Int) }),
      execute: () => sql`select max(migration_id)::int as latest from pressroom_migrations`
    })
    // A failing statement is the caller's (not ready); a row that does not decode is a defect.
    const row = yield* applied(undefined).pipe(Effect.catchTags({ ParseError: Effect.die, NoSuchElementException: Effect.die }))
    return (row.latest ?? 0) >= latest
  })
