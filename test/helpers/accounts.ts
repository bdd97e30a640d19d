/**
 * Accounts and API keys written straight into a test database, for tests that need an owner
 * before (or without) a server. The rows are those the admin API writes: only the key's SHA-256
 * is stored. For PGlite, call it before a server opens the same files (`runWith` closes the
 * database afterwards).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { createHash, randomBytes, randomUUID } from "node:crypto"
import { ALL_SCOPES, type ApiScope } from "../../src/accounts/principal.ts"
import type { Plan } from "../../src/entitlements/plan.ts"
import { runWith, type TestDatabase } from "./database.ts"

export interface CreatedAccount {
  readonly accountId: string
  /** The API key in clear (`pk_live_…`), for `Authorization: Bearer`. */
  readonly key: string
}

/** A new key of `accountId` with `scopes` (every scope when left out). */
export const insertKey = (accountId: string, scopes: ReadonlyArray<ApiScope> = ALL_SCOPES) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const key = `pk_live_${randomBytes(16).toString("hex")}`
    const secretSha256 = createHash("sha256").update(key).digest("hex")
    // A PostgreSQL array literal: scope names are plain words, so nothing needs quoting.
    yield* sql`
      insert into api_keys (id, account_id, prefix, secret_sha256, scopes, environment)
      values (${randomUUID()}, ${accountId}, ${key.slice(0, 12)}, ${secretSha256}, ${`{${scopes.join(",")}}`}::text[], 'live')`
    return key
  })

/** A new account with one key, as an effect on a database client. */
export const insertAccountWithKey = (options: { readonly plan?: Plan; readonly scopes?: ReadonlyArray<ApiScope> } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const accountId = randomUUID()
    yield* sql`insert into accounts (id, name, plan) values (${accountId}, 'Test account', ${options.plan ?? "monthly"})`
    const key = yield* insertKey(accountId, options.scopes)
    return { accountId, key } satisfies CreatedAccount
  })

/** A new account with one key in `database`. */
export const createAccountWithKey = (
  database: TestDatabase,
  options: { readonly plan?: Plan; readonly scopes?: ReadonlyArray<ApiScope> } = {}
): Promise<CreatedAccount> => runWith(database, Effect.orDie(insertAccountWithKey(options)))
