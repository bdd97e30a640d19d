/**
 * The `idempotency_records` table: one row per (owner, operation, key), claimed by the first
 * request and completed with its outcome. Every change a waiting duplicate cares about (completed,
 * released) is announced on `CHANGES_CHANNEL` in the statement that makes it, so the notification
 * is sent when the change commits.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { jcs, sha256Hex } from "../shared/hash.ts"
import { column } from "../shared/rows.ts"
import { encodeError, SavedError, type SavedOutcome } from "./saved-outcome.ts"

export const CHANGES_CHANNEL = "pressroom_idempotency"

export interface RecordScope {
  readonly accountId: string
  readonly operation: string
  readonly key: string
}

/** The payload announcing a change of the record of `scope`; a hash, so that keys never travel in notifications. */
export const changeToken = (scope: RecordScope): string => sha256Hex(jcs([scope.accountId, scope.operation, scope.key]))

export interface IdempotencyRecord {
  readonly requestSha256: string
  /** None while the first request is in progress. */
  readonly outcome: Option.Option<SavedOutcome>
}

/** A record's row: its outcome is an error (`response_error`) or a response (status, headers, body), once completed. */
const RecordRow = Schema.Struct({
  requestSha256: column(Schema.String, "request_sha256"),
  state: Schema.Literal("in_progress", "completed"),
  responseStatus: column(Schema.NullOr(Schema.Int), "response_status"),
  responseHeaders: column(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.String })), "response_headers"),
  responseBody: column(Schema.NullOr(Schema.String), "response_body"),
  responseError: column(Schema.NullOr(SavedError), "response_error")
})

const toRecord = (row: typeof RecordRow.Type): IdempotencyRecord => ({
  requestSha256: row.requestSha256,
  outcome:
    row.state === "in_progress"
      ? Option.none()
      : Option.some(
          row.responseError !== null
            ? { _tag: "error", error: row.responseError }
            : { _tag: "response", response: { status: row.responseStatus!, headers: row.responseHeaders ?? {}, body: row.responseBody } }
        )
})

export const makeIdempotencyRecords = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const where = (scope: RecordScope) => sql`account_id = ${scope.accountId} and operation = ${scope.operation} and key = ${scope.key}`
  const Scope = Schema.Struct({ accountId: Schema.String, operation: Schema.String, key: Schema.String })

  const unexpired = SqlSchema.findOne({
    Request: Scope,
    Result: RecordRow,
    execute: (scope) => sql`
          select request_sha256, state, response_status, response_headers, response_body, response_error
          from idempotency_records where ${where(scope)} and expires_at > now()`
  })
  const purge = SqlSchema.single({
    Request: Schema.Void,
    Result: Schema.Struct({ purged: Schema.Int }),
    execute: () => sql`
        with purged as (delete from idempotency_records where expires_at <= now() returning 1)
        select count(*)::int as purged from purged`
  })

  return {
    /**
     * Makes this request the owner of the record, in progress: true when there was none, or only
     * an expired one (which it replaces). Concurrent claims of one key race on the primary key in
     * the database, and exactly one wins.
     */
    claim: (scope: RecordScope, requestSha256: string, ttlSeconds: number) =>
      Effect.map(
        sql`
          insert into idempotency_records as record (account_id, operation, key, request_sha256, state, expires_at)
          values (${scope.accountId}, ${scope.operation}, ${scope.key}, ${requestSha256}, 'in_progress',
                  now() + ${ttlSeconds}::int * interval '1 second')
          on conflict (account_id, operation, key) do update
            set request_sha256 = excluded.request_sha256, state = 'in_progress', response_status = null,
                response_headers = null, response_body = null, response_error = null,
                created_at = now(), expires_at = excluded.expires_at
            where record.expires_at <= now()
          returning 1 as claimed`,
        (rows) => rows.length > 0
      ).pipe(Effect.orDie),

    /** The unexpired record of `scope`, if any. */
    find: (scope: RecordScope): Effect.Effect<Option.Option<IdempotencyRecord>> =>
      Effect.map(unexpired(scope), Option.map(toRecord)).pipe(Effect.orDie),

    /** Saves the outcome of the request that claimed the record. */
    complete: (scope: RecordScope, outcome: SavedOutcome) => {
      const [status, headers, body, error] =
        outcome._tag === "response"
          ? [outcome.response.status, JSON.stringify(outcome.response.headers), outcome.response.body, null]
          : [outcome.error.httpStatus, null, null, JSON.stringify(encodeError(outcome.error))]
      return sql`
        with completed as (
          update idempotency_records
          set state = 'completed', response_status = ${status}, response_headers = ${headers}::jsonb,
              response_body = ${body}, response_error = ${error}::jsonb
          where ${where(scope)} and state = 'in_progress'
          returning 1
        )
        select pg_notify(${CHANGES_CHANNEL}, ${changeToken(scope)}) from completed`.pipe(Effect.asVoid, Effect.orDie)
    },

    /** Removes the record of a request whose outcome is not to be replayed, so a retry runs afresh. */
    release: (scope: RecordScope) =>
      sql`
        with released as (delete from idempotency_records where ${where(scope)} and state = 'in_progress' returning 1)
        select pg_notify(${CHANGES_CHANNEL}, ${changeToken(scope)}) from released`.pipe(Effect.asVoid, Effect.orDie),

    /**
     * Removes a deleted document's title and quoted warnings from the saved outcomes that name it
     * (migrations/0011_deleted_means_gone.sql); a replay then shows neither.
     */
    scrubDocument: (accountId: string, documentId: string) =>
      sql`
        update idempotency_records set response_body = scrub_saved_outcome(response_body::jsonb)::text
        where account_id = ${accountId} and response_body like ${`%${documentId}%`}`.pipe(Effect.asVoid, Effect.orDie),

    /** Deletes every expired record; returns how many. */
    purgeExpired: Effect.map(purge(undefined), (row) => row.purged).pipe(Effect.orDie)
  } as const
})
