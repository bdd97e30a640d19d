/**
 * Token buckets per owner and rate class (contract section 7), kept in `rate_limit_buckets` so
 * every server process on one database draws from the same bucket. Refill and take happen in one
 * statement, on the database clock: an upsert whose update only applies while a whole token is
 * there, under the row lock PostgreSQL takes for `on conflict do update`. Two processes can then
 * never both spend the last token, and no process's clock skews the refill.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { RateLimited } from "../shared/errors.ts"
import { type RateClass, rateLimitConfig } from "./rate-limit-config.ts"

export type { RateClass } from "./rate-limit-config.ts"

/** A bucket's tokens (a `double precision`). */
const Tokens = Schema.Struct({ tokens: Schema.Number })
const Bucket = Schema.Struct({ accountId: Schema.String, rateClass: Schema.String, capacity: Schema.Number })

export class RateLimiter extends Effect.Service<RateLimiter>()("pressroom/RateLimiter", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const perMinute = yield* rateLimitConfig

    // The bucket's tokens now: what was left plus the refill since, up to capacity. "Now" is the
    // statement's start (`now()` would be its transaction's, stale inside a long one). A statement
    // that waited for another's row lock may find a `refilled_at` after its own start: no time.
    const refilled = (capacity: number) =>
      sql`least(${capacity}::float8, bucket.tokens + greatest(0, extract(epoch from statement_timestamp() - bucket.refilled_at))::float8 * ${capacity / 60}::float8)`

    const takeToken = SqlSchema.findAll({
      Request: Bucket,
      Result: Tokens,
      execute: ({ accountId, capacity, rateClass }) => sql`
        insert into rate_limit_buckets as bucket (account_id, class, tokens, refilled_at)
        values (${accountId}, ${rateClass}, ${capacity - 1}, statement_timestamp())
        on conflict (account_id, class) do update
          set tokens = ${refilled(capacity)} - 1, refilled_at = greatest(bucket.refilled_at, statement_timestamp())
          where ${refilled(capacity)} >= 1
        returning tokens`
    })

    const tokensNow = SqlSchema.findOne({
      Request: Bucket,
      Result: Tokens,
      execute: ({ accountId, capacity, rateClass }) => sql`
          select ${refilled(capacity)} as tokens from rate_limit_buckets as bucket
          where account_id = ${accountId} and class = ${rateClass}`
    })
    /** Whole seconds until the bucket holds one token again; at least 1, as `Retry-After` needs. */
    const secondsUntilToken = (bucket: typeof Bucket.Type) =>
      Effect.map(tokensNow(bucket), (row) => {
        const tokens = Option.match(row, { onNone: () => 0, onSome: (found) => found.tokens })
        return Math.max(1, Math.ceil(((1 - tokens) * 60) / bucket.capacity))
      }).pipe(Effect.orDie)

    /** Spends one token of the owner's `rateClass` bucket, or fails with 429 `rate_limited`. */
    const take = (accountId: string, rateClass: RateClass): Effect.Effect<void, RateLimited> => {
      const capacity = perMinute[rateClass]
      const bucket = { accountId, rateClass, capacity }
      return Effect.flatMap(Effect.orDie(takeToken(bucket)), (taken) =>
        taken.length > 0
          ? Effect.void
          : Effect.flatMap(secondsUntilToken(bucket), (retryAfterSeconds) => Effect.fail(new RateLimited({ retryAfterSeconds })))
      )
    }

    return { take } as const
  })
}) {}
