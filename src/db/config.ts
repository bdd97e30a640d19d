/** Where the data lives (contract section 1): `DATABASE_URL`, else PGlite under `PRESSROOM_DATA_DIR`. */
import { Config, Option } from "effect"
import { join, resolve } from "node:path"

export const dataDirConfig = Config.string("PRESSROOM_DATA_DIR").pipe(
  Config.withDefault(".pressroom"),
  Config.map((dir) => resolve(dir))
)

export type DatabaseConfig =
  | { readonly _tag: "postgres"; readonly url: import("effect").Redacted.Redacted }
  | { readonly _tag: "embedded"; readonly dataDir: string }

export const databaseConfig: Config.Config<DatabaseConfig> = Config.all({
  url: Config.option(Config.redacted("DATABASE_URL")),
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
