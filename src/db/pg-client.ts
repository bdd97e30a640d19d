/** The `@effect/sql-pg` client for a PostgreSQL server (`DATABASE_URL`), with notifications that survive a lost connection. */
import { SqlClient, type SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, type Redacted } from "effect"
import { Notifications } from "./notifications.ts"
import * as PgNotifications from "./pg-notifications.ts"

export const layer = (url: Redacted.Redacted): Layer.Layer<SqlClient.SqlClient | Notifications, SqlError.SqlError> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const client = yield* PgClient.PgClient
      return Context.make(SqlClient.SqlClient, client).pipe(Context.add(Notifications, yield* PgNotifications.make(url)))
    })
  ).pipe(Layer.provide(PgClient.layer({ url, maxConnections: 10 })))
