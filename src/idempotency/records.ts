/**
 * The `idempotency_records` table: one row per (owner, operation, key), claimed by the first
 * request and completed with its outcome. Every change a waiting duplicate cares about (completed,
 * released) is announced on `CHANGES_CHANNEL` in the statement that makes it, so the notification
 * is sent when the change commits.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { jcs, sha256Hex } from "../shared/hash.ts"
import { decodeError, encodeError, type SavedOutcome } from "./saved-outcome.ts"

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

interface RecordRow {
  readonly request_sha256: string
  readonly state: "in_progress" | "completed"
  readonly response_status: number | null
  readonly response_headers: Record<string, string> | null
  readonly response_body: string | null
  readonly response_error: unknown
}

const toRecord = (row: RecordRow): IdempotencyRecord => ({
  requestSha256: row.request_sha256,
  outcome:
    row.state === "in_progress"
      ? Option.none()
      : Option.some(
          row.response_error !== null
            ? { _tag: "error", error: decodeError(row.response_error) }
            : { _tag: "response", response: { status: row.response_status!, headers: row.response_headers ?? {}, body: row.response_body } }
        )
})

export const makeIdempotencyRecords = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const where = (scope: RecordScope) => sql`account_id = ${scope.accountId} and operation = ${scope.operation} and key = ${scope.key}`

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
      Effect.map(
        sql<RecordRow>`
          select request_sha256, state, response_status, response_headers, response_body, response_error
          from idempotency_records where ${where(scope)} and expires_at > now()`,
        (rows) => Option.map(Option.fromNullable(rows[0]), toRecord)
      ).pipe(Effect.orDie),

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
    purgeExpired: Effect.map(
      sql<{ purged: number }>`
        with purged as (delete from idempotency_records where expires_at <= now() returning 1)
        select count(*)::int as purged from purged`,
      (rows) => rows[0]?.purged ?? 0
    ).pipe(Effect.orDie)
  } as const
})
