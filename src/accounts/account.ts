/** Accounts: the owners of API keys and of everything those keys create (contract section 2). */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Plan } from "../entitlements/plan.ts"
import { NotFound } from "../shared/errors.ts"
import { Timestamp } from "../shared/timestamp.ts"

export class Account extends Schema.Class<Account>("Account")({
  id: Schema.UUID,
  name: Schema.String,
  plan: Plan,
  /** A custom monthly allowance; null means the plan's (contract section 6). */
  monthlyUnits: Schema.NullOr(Schema.Int),
  createdAt: Timestamp
}) {}

interface AccountRow {
  readonly id: string
  readonly name: string
  readonly plan: Plan
  readonly monthly_units: number | null
  readonly created_at: Date
}

const toAccount = (row: AccountRow) =>
  new Account({ id: row.id, name: row.name, plan: row.plan, monthlyUnits: row.monthly_units, createdAt: row.created_at.toISOString() })

export interface NewAccount {
  readonly name: string
  readonly plan: Plan
  readonly monthlyUnits: number | null
}

export class Accounts extends Effect.Service<Accounts>()("pressroom/Accounts", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const create = (account: NewAccount): Effect.Effect<Account> =>
      sql<AccountRow>`
        insert into accounts (id, name, plan, monthly_units)
        values (${randomUUID()}, ${account.name}, ${account.plan}, ${account.monthlyUnits})
        returning id, name, plan, monthly_units, created_at`.pipe(
        Effect.map((rows) => toAccount(rows[0]!)),
        Effect.orDie
      )

    /** The account `id`; 404 when there is none. */
    const find = (id: string): Effect.Effect<Account, NotFound> =>
      sql<AccountRow>`select id, name, plan, monthly_units, created_at from accounts where id = ${id}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => (rows[0] ? Effect.succeed(toAccount(rows[0])) : Effect.fail(new NotFound({ resource: "account" }))))
      )

    return { create, find } as const
  })
}) {}
