/**
 * Statements with parameters on PGlite, prepared once and then run as one protocol exchange.
 *
 * `PGlite.query` parses, plans and describes its statement on every call, in five separate calls
 * into the WASM backend. A named prepared statement is parsed and described once; each run is then
 * Bind, Describe, Execute and Sync in a single call, as node-postgres and postgres.js do against a
 * server: two to two and a half times faster per statement (`npm run bench:db`).
 *
 * Values are serialised by the types the backend described for the parameters, with PGlite's own
 * serialisers, and rows are parsed with its parsers: results are what `PGlite.query` returns.
 */
import { parse, type PGlite, protocol, type Results, type RowMode } from "@electric-sql/pglite"
import { Buffer } from "node:buffer"

/** How many distinct statement texts stay prepared; the least recently used one is closed beyond. */
const CAPACITY = 256

const FEATURE_NOT_SUPPORTED = "0A000"

interface Prepared {
  readonly name: string
  readonly parameterTypes: ReadonlyArray<number>
}

/** A statement runner for `db`; each run holds PGlite's query lock, so no other query interleaves. */
export const makePreparedStatements = (db: PGlite) => {
  const { serialize } = protocol
  // Insertion order is recency: a hit moves its entry to the end.
  const prepared = new Map<string, Prepared>()
  // Names to close with the next preparation, in the same exchange.
  const closing: Array<string> = []
  let counter = 0

  const prepare = async (text: string): Promise<Prepared> => {
    const name = `pressroom_${counter++}`
    const stale = closing.splice(0)
    const closes = stale.map((old) => serialize.close({ type: "S", name: old }))
    const described = await db
      .execProtocol(Buffer.concat([...closes, serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]))
      .catch((error: unknown) => {
        // Closing a statement twice is no error, so the next preparation may simply try again.
        closing.push(...stale)
        throw error
      })
    const statement = { name, parameterTypes: parse.parseDescribeStatementResults(described.messages) }
    prepared.set(text, statement)
    if (prepared.size > CAPACITY) {
      const [oldest] = prepared.keys()
      closing.push(prepared.get(oldest!)!.name)
      prepared.delete(oldest!)
    }
    return statement
  }

  const parameterValue = (value: unknown, type: number | undefined) => {
    if (value === null || value === undefined) return null
    const serializer = type === undefined ? undefined : db.serializers[type]
    return serializer ? serializer(value) : String(value)
  }

  const execute = async (statement: Prepared, params: ReadonlyArray<unknown>, rowMode: RowMode): Promise<Results> => {
    const values = params.map((value, index) => parameterValue(value, statement.parameterTypes[index]))
    const result = await db.execProtocol(
      Buffer.concat([
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: "P" }),
        serialize.execute({}),
        serialize.sync()
      ])
    )
    return parse.parseResults(result.messages, db.parsers, { rowMode })[0]!
  }

  const run = async (text: string, params: ReadonlyArray<unknown>, rowMode: RowMode): Promise<Results> => {
    const hit = prepared.get(text)
    if (hit) {
      prepared.delete(text)
      prepared.set(text, hit)
    }
    const statement = hit ?? (await prepare(text))
    try {
      return await execute(statement, params, rowMode)
    } catch (error) {
      // A plan gone stale because its tables changed shape ("cached plan must not change result
      // type") is dropped. Outside a transaction it is prepared afresh and run once more; inside
      // one the error has aborted the transaction, so the caller gets it as it is.
      if ((error as { code?: string }).code !== FEATURE_NOT_SUPPORTED) throw error
      prepared.delete(text)
      closing.push(statement.name)
      if (db.isInTransaction()) throw error
      return execute(await prepare(text), params, rowMode)
    }
  }

  // PGlite's own queries (`listen` sends LISTEN through one) take its query lock; holding it too
  // keeps theirs from interleaving with these protocol messages.
  return (text: string, params: ReadonlyArray<unknown>, rowMode: RowMode): Promise<Results> =>
    db.runExclusive(() => run(text, params, rowMode))
}
