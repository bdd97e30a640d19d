/**
 * Sign-in throttling (contract section 12): ten failed sign-ins for one email within 15 minutes
 * refuse further attempts for that email for 15 minutes from the tenth. Failures are rows in the
 * database, so every process sharing it counts the same; attempts refused while throttled are not
 * failures (they would otherwise keep the email locked for ever).
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { column } from "../shared/rows.ts"

export const MAX_FAILURES = 10
export const WINDOW_MS = 15 * 60 * 1000

/**
 * Whether failures (newest first) lock the email at `now`: some ten consecutive ones fit in the
 * window, and the newest of those is less than the window old.
 */
export const lockedAt = (failures: ReadonlyArray<Date>, now: number): boolean =>
  failures.some(
    (newest, i) =>
      i + MAX_FAILURES - 1 < failures.length &&
      newest.getTime() - failures[i + MAX_FAILURES - 1]!.getTime() <= WINDOW_MS &&
      now - newest.getTime() < WINDOW_MS
  )

export class SignInThrottle extends Effect.Service<SignInThrottle>()("pressroom/SignInThrottle", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const recentFailures = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({ failedAt: column(Schema.DateFromSelf, "failed_at"), now: Schema.DateFromSelf }),
      execute: (email) => sql`
        select failed_at, now() as now from sign_in_failures
        where email = ${email} and failed_at > now() - interval '30 minutes'
        order by failed_at desc`
    })

    /** Whether `email` may try to sign in now. Only failures of the last two windows can matter. */
    const isLocked = (email: string): Effect.Effect<boolean> =>
      recentFailures(email).pipe(
        Effect.map(
          (rows) =>
            rows.length >= MAX_FAILURES &&
            lockedAt(
              rows.map((row) => row.failedAt),
              rows[0]!.now.getTime()
            )
        ),
        Effect.orDie
      )

    /** Counts a failed sign-in of `email`, and forgets that email's failures too old to matter. */
    const recordFailure = (email: string): Effect.Effect<void> =>
      sql`delete from sign_in_failures where email = ${email} and failed_at < now() - interval '30 minutes'`.pipe(
        Effect.zipRight(sql`insert into sign_in_failures (email) values (${email})`),
        Effect.asVoid,
        Effect.orDie
      )

    return { isLocked, recordFailure } as const
  })
}) {}
