/** Where the data lives (contract section 1): `DATABASE_URL`, else PGlite under `PRESSROOM_DATA_DIR`. */
import { Config, Option, Redacted } from "effect"
import { join, resolve } from "node:path"

export const dataDirConfig = Config.string("PRESSROOM_DATA_DIR").pipe(
  Config.withDefault(".pressroom"),
  Config.map((dir) => resolve(dir))
)

export type DatabaseConfig =
  | { readonly _tag: "postgres"; readonly url: Redacted.Redacted }
  | { readonly _tag: "embedded"; readonly dataDir: string }

/** An empty `DATABASE_URL=` (as `.env` files and shells often leave it) is unset, not a connection string. */
const databaseUrl = Config.option(Config.redacted("DATABASE_URL")).pipe(
  Config.map(Option.filter((url) => Redacted.value(url).trim() !== ""))
)

export const databaseConfig: Config.Config<DatabaseConfig> = Config.all({
  url: databaseUrl,
  dataDir: dataDirConfig
}).pipe(
  Config.map(
    ({ url, dataDir }): DatabaseConfig =>
      Option.match(url, {
        onSome: (url) => ({ _tag: "postgres", url }),
        onNone: () => ({ _tag: "embedded", dataDir: join(dataDir, "db") })
      })
  )
)
