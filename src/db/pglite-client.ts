/**
 * An `@effect/sql` client over embedded PGlite. PGlite is one connection inside this process, so
 * every statement and every transaction holds a one-permit semaphore, as `@effect/sql-sqlite-node`
 * does for its single connection. SQL is compiled by the PostgreSQL compiler of `@effect/sql-pg`,
 * so both databases run the same statements.
 */
import { PGlite } from "@electric-sql/pglite"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, SqlError } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Stream } from "effect"
import { lockFolder } from "./folder-lock.ts"
import { Notifications } from "./notifications.ts"
import { makePreparedStatements } from "./pglite-statements.ts"

const failure = (message: string) => (cause: unknown) => new SqlError.SqlError({ cause, message })

export interface PgliteOptions {
  /** A folder for the database files; undefined keeps the database in memory. */
  readonly dataDir: string | undefined
}

/** The folder for this process alone (folder-lock.ts), held until the database is closed. */
const holdFolder = (dataDir: string | undefined) =>
  dataDir === undefined
    ? Effect.void
    : Effect.acquireRelease(
        Effect.try({
          try: () => lockFolder(dataDir),
          catch: (error) => new SqlError.SqlError({ cause: error, message: (error as Error).message })
        }),
        (release) => Effect.sync(release)
      )

const openDatabase = (options: PgliteOptions) =>
  Effect.zipRight(
    holdFolder(options.dataDir),
    Effect.acquireRelease(
      Effect.tryPromise({
        try: () => PGlite.create(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
        catch: failure("Failed to open the embedded database")
      }),
      (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
    )
  )

const makeConnection = (db: PGlite): Connection => {
  const run = makePreparedStatements(db)
  // Without parameters a statement goes through the simple protocol, as node-postgres sends it, so
  // a migration file of several statements runs as one.
  const query = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") =>
    Effect.tryPromise({
      try: async () => (params.length > 0 ? run(sql, params, rowMode) : ((await db.exec(sql, { rowMode })).at(-1) ?? { rows: [] })),
      catch: failure("Failed to execute statement")
    })
  const execute: Connection["execute"] = (sql, params, transformRows) =>
    Effect.map(query(sql, params, "object"), (result) => (transformRows ? transformRows(result.rows) : result.rows))
  return {
    execute,
    executeRaw: (sql, params) => query(sql, params, "object"),
    executeValues: (sql, params) => Effect.map(query(sql, params, "array"), (result) => result.rows as Array<Array<unknown>>),
    executeUnprepared: execute,
    executeStream: (sql, params, transformRows) => Stream.fromIterableEffect(execute(sql, params, transformRows))
  }
}

export const layer = (options: PgliteOptions): Layer.Layer<SqlClient.SqlClient | Notifications, SqlError.SqlError> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const db = yield* openDatabase(options)
      const connection = makeConnection(db)
      const permit = yield* Effect.makeSemaphore(1)
      const acquirer = Effect.as(
        Effect.acquireRelease(permit.take(1), () => permit.release(1)),
        connection
      )
      const client = yield* SqlClient.make({
        acquirer,
        transactionAcquirer: acquirer,
        compiler: PgClient.makeCompiler(),
        spanAttributes: [
          ["db.system.name", "postgresql"],
          ["db.namespace", "pglite"]
        ]
      })
      const notifications = Notifications.of({
        // PGlite delivers NOTIFY to listeners in this process, after the notifying transaction commits.
        listen: (channel) =>
          Stream.asyncPush<string, SqlError.SqlError>((emit) =>
            Effect.acquireRelease(
              Effect.tryPromise({
                try: () => db.listen(channel, (payload) => emit.single(payload)),
                catch: failure("Failed to listen")
              }),
              (unlisten) => Effect.promise(() => unlisten()).pipe(Effect.ignore)
            )
          ),
        // In process: nothing to lose, so nothing to resume.
        resumed: Stream.never
      })
      return Context.make(SqlClient.SqlClient, client).pipe(Context.add(Notifications, notifications))
    })
  ).pipe(Layer.provide(Reactivity.layer))
