/** Where a word is kept: every (table, column) of text or JSON in the database whose value holds it. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export const columnsHolding = (word: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = yield* sql<{ table_name: string; column_name: string }>`
      select table_name, column_name from information_schema.columns
      where table_schema = 'public' and data_type in ('text', 'character varying', 'json', 'jsonb', 'ARRAY')`
    const found: Array<string> = []
    for (const { table_name, column_name } of columns) {
      const rows = yield* sql.unsafe<{ n: number }>(
        `select count(*)::int as n from "${table_name}" where "${column_name}"::text ilike $1`,
        [`%${word}%`]
      )
      if (rows[0]!.n > 0) found.push(`${table_name}.${column_name}`)
    }
    return found
  }).pipe(Effect.orDie)
