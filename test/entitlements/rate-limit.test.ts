/**
 * The RateLimiter in process, on each database: a bucket holds its per-minute figure, refuses with
 * 429, Retry-After and details.retryAfterSeconds when empty, refills continuously, keeps owners and
 * classes apart, never hands out more tokens than it holds under concurrency, and refuses a
 * configuration that is not a positive integer.
 */
import { SqlClient } from "@effect/sql"
import t from "tap"
import { ConfigProvider, Effect, Either, ManagedRuntime } from "effect"
import type { Notifications } from "../../src/db/notifications.ts"
import { RateLimiter } from "../../src/entitlements/rate-limiter.ts"
import { errorHeaders, type PressroomError, publishingError } from "../../src/shared/errors.ts"
import { insertAccountWithKey } from "../helpers/accounts.ts"
import { forEachDatabase } from "../helpers/database.ts"
import type { TestContext } from "../helpers/tap.ts"

type Database = ManagedRuntime.ManagedRuntime<SqlClient.SqlClient | Notifications, never>

const withLimiter = <A, E>(
  database: Database,
  config: Record<string, string>,
  program: (accountId: string) => Effect.Effect<A, E, RateLimiter | SqlClient.SqlClient>
) =>
  database.runPromise(
    Effect.gen(function* () {
      const { accountId } = yield* Effect.orDie(insertAccountWithKey())
      return yield* program(accountId).pipe(
        Effect.provide(RateLimiter.Default),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(config))))
      )
    })
  )

/** Takes `count` tokens one after another; returns the outcome of each. */
const takeMany = (accountId: string, count: number, rateClass: "write" | "read" = "write") =>
  Effect.flatMap(RateLimiter, (limiter) =>
    Effect.forEach(Array.from({ length: count }), () => Effect.either(limiter.take(accountId, rateClass)))
  )

/** The refusal as a client would read it: the published error and its response headers. */
const refusal = (outcome: Either.Either<void, PressroomError>) => {
  if (Either.isRight(outcome)) throw new Error("expected a refusal")
  return { ...publishingError(outcome.left), headers: errorHeaders(outcome.left) }
}

t.test("RateLimiter", (t) =>
  forEachDatabase(t, async (t: TestContext, testDatabase) => {
    const database: Database = ManagedRuntime.make(testDatabase.layer)
    try {
      await t.test("the bucket holds the per-minute figure, then answers 429 with the wait", async (t) => {
        const outcomes = await withLimiter(database, { PRESSROOM_RATE_LIMIT_WRITE_PER_MINUTE: "3" }, (accountId) => takeMany(accountId, 4))
        t.same(outcomes.map(Either.isRight), [true, true, true, false])
        const error = refusal(outcomes[3]!)
        t.equal(error.code, "rate_limited")
        t.equal(error.httpStatus, 429)
        t.equal(error.retryable, true)
        // Three per minute: one token is back 20 s after the bucket emptied.
        t.ok(
          Number.isInteger(error.details?.retryAfterSeconds) &&
            error.details!.retryAfterSeconds! >= 19 &&
            error.details!.retryAfterSeconds! <= 20,
          `retryAfterSeconds is the time until one token (${error.details?.retryAfterSeconds})`
        )
        t.equal(error.headers?.["retry-after"], String(error.details?.retryAfterSeconds), "Retry-After says the same")
      })

      await t.test("tokens come back continuously", async (t) => {
        const outcomes = await withLimiter(database, { PRESSROOM_RATE_LIMIT_WRITE_PER_MINUTE: "3" }, (accountId) =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            yield* takeMany(accountId, 3)
            // 30 s ago at three per minute: one and a half tokens since.
            yield* Effect.orDie(
              sql`update rate_limit_buckets set refilled_at = refilled_at - interval '30 seconds' where account_id = ${accountId}`
            )
            return yield* takeMany(accountId, 2)
          })
        )
        t.same(outcomes.map(Either.isRight), [true, false], "one whole token came back, not two")
        const error = refusal(outcomes[1]!)
        t.equal(error.details?.retryAfterSeconds, 10, "the half token left needs 10 s more")
      })

      await t.test("owners and classes have buckets of their own", async (t) => {
        const result = await withLimiter(database, { PRESSROOM_RATE_LIMIT_WRITE_PER_MINUTE: "1" }, (accountId) =>
          Effect.gen(function* () {
            const other = yield* Effect.orDie(insertAccountWithKey())
            return {
              first: yield* takeMany(accountId, 2),
              otherOwner: yield* takeMany(other.accountId, 1),
              readClass: yield* takeMany(accountId, 5, "read")
            }
          })
        )
        t.same(result.first.map(Either.isRight), [true, false])
        t.ok(Either.isRight(result.otherOwner[0]!), "another owner's bucket is full")
        t.ok(result.readClass.every(Either.isRight), "the read bucket (600 by default) is apart from write")
      })

      await t.test("concurrent takes never spend more than the bucket holds", async (t) => {
        const outcomes = await withLimiter(database, { PRESSROOM_RATE_LIMIT_WRITE_PER_MINUTE: "5" }, (accountId) =>
          Effect.flatMap(RateLimiter, (limiter) =>
            Effect.all(
              Array.from({ length: 20 }, () => Effect.either(limiter.take(accountId, "write"))),
              { concurrency: "unbounded" }
            )
          )
        )
        t.equal(outcomes.filter(Either.isRight).length, 5)
      })

      await t.test("a per-minute figure must be a positive integer", async (t) => {
        for (const value of ["0", "-2", "ten", "1.5"]) {
          const built = await database.runPromise(
            Effect.either(
              Effect.provide(RateLimiter, RateLimiter.Default).pipe(
                Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["PRESSROOM_RATE_LIMIT_PREVIEW_PER_MINUTE", value]])))
              )
            )
          )
          t.ok(Either.isLeft(built), `${value} is refused`)
        }
      })
    } finally {
      await database.dispose()
    }
  })
)
