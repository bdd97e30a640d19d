/** The database the configuration names, migrated: PostgreSQL when `DATABASE_URL` is set, else PGlite. */
import { Effect, Layer } from "effect"
import { mkdirSync } from "node:fs"
import { databaseConfig } from "./config.ts"
import { migrate } from "./migrator.ts"
import * as PgliteClient from "./pglite-client.ts"
import * as PostgresClient from "./pg-client.ts"

export const DatabaseLive = Layer.unwrapEffect(
  Effect.map(databaseConfig, (config) => {
    if (config._tag === "postgres") return PostgresClient.layer(config.url)
    mkdirSync(config.dataDir, { recursive: true })
    return PgliteClient.layer({ dataDir: config.dataDir })
  })
)

/** The database with every migration applied before anything uses it. */
export const MigratedDatabaseLive = Layer.effectDiscard(Effect.orDie(migrate)).pipe(Layer.provideMerge(DatabaseLive))
