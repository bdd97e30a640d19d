/**
 * `pressroom migrate`: applies the pending migrations of `migrations/` to the configured database
 * (the server also does this at start) and prints what it applied as JSON.
 */
import { Effect } from "effect"
import { DatabaseLive } from "../db/layer.ts"
import { migrate } from "../db/migrator.ts"
import { migrateUsage, UsageError } from "./usage.ts"

export const runMigrate = async (argv: ReadonlyArray<string>): Promise<void> => {
  if (argv.length > 0) throw new UsageError(migrateUsage)
  const applied = await Effect.runPromise(Effect.scoped(Effect.provide(migrate, DatabaseLive)))
  process.stdout.write(`${JSON.stringify({ applied: applied.map(([id, name]) => ({ id, name })) })}\n`)
}
