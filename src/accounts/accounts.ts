/** Accounts, stored (contract section 2). */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import type { Plan } from "../entitlements/plan.ts"
import { NotFound } from "../shared/errors.ts"
import { column, TimestampColumn } from "../shared/rows.ts"
import { Account } from "./account.ts"

/** A row of `accounts` decoded into an `Account`. */
const AccountRow = Schema.Struct({
  ...Account.fields,
  monthlyUnits: column(Account.fields.monthlyUnits, "monthly_units"),
  createdAt: column(TimestampColumn, "created_at")
})
const toAccount = Schema.decodeUnknown(AccountRow)

export interface NewAccount {
  readonly name: string
  readonly plan: Plan
  readonly monthlyUnits: number | null
}

export class Accounts extends Effect.Service<Accounts>()("pressroom/Accounts", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const findById = SqlSchema.findOne({
      Request: Schema.UUID,
      Result: AccountRow,
      execute: (id) => sql`select id, name, plan, monthly_units, created_at from accounts where id = ${id}`
    })

    const create = (account: NewAccount): Effect.Effect<Account> =>
      sql`
        insert into accounts (id, name, plan, monthly_units)
        values (${randomUUID()}, ${account.name}, ${account.plan}, ${account.monthlyUnits})
        returning id, name, plan, monthly_units, created_at`.pipe(
        Effect.flatMap(([row]) => toAccount(row)),
        Effect.map((fields) => new Account(fields)),
        Effect.orDie
      )

    /** The account `id`; 404 when there is none. */
    const find = (id: string): Effect.Effect<Account, NotFound> =>
      findById(id).pipe(
        Effect.orDie,
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.fail(new NotFound({ resource: "account" })),
            onSome: (fields) => Effect.succeed(new Account(fields))
          })
        )
      )

    return { create, find } as const
  })
}) {}
