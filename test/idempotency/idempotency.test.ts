/**
 * The Idempotency service in process, on each database: one execution per (owner, operation,
 * key), replays with `Idempotency-Replayed: true`, saved errors, transient failures and defects
 * that free the key, conflicts, duplicates that wait for the first request, expiry; on PostgreSQL
 * also two "processes" (separate connection pools and listeners) racing for one key.
 */
import { HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import t from "tap"
import { ConfigProvider, Deferred, Effect, Either, Exit, Fiber, ManagedRuntime, Ref } from "effect"
import { CurrentPrincipal, type Principal } from "../../src/accounts/principal.ts"
import {
  errorHeaders,
  InvalidRequest,
  type PressroomError,
  publishingError,
  RateLimited,
  ServiceUnavailable
} from "../../src/shared/errors.ts"
import { Idempotency, type IdempotencyOptions } from "../../src/idempotency/idempotency.ts"
import { jcsSha256 } from "../../src/shared/hash.ts"
import { insertAccountWithKey } from "../helpers/accounts.ts"
import type { Notifications } from "../../src/db/notifications.ts"
import { forEachDatabase } from "../helpers/database.ts"
import type { TestContext } from "../helpers/tap.ts"

const principalOf = (accountId: string): Principal => ({
  accountId,
  actor: { kind: "key", keyId: accountId },
  plan: "monthly",
  scopes: new Set()
})

type Database = ManagedRuntime.ManagedRuntime<SqlClient.SqlClient | Notifications, never>

/** Runs `program` with a fresh account as the current principal and the Idempotency service on `database`. */
const withService = <A, E>(
  database: Database,
  program: (context: { readonly accountId: string }) => Effect.Effect<A, E, Idempotency | CurrentPrincipal | SqlClient.SqlClient>,
  options: IdempotencyOptions & { readonly ttlSeconds?: number } = { inProgressWait: "1 second" }
) =>
  database.runPromise(
    Effect.gen(function* () {
      const { accountId } = yield* Effect.orDie(insertAccountWithKey())
      return yield* program({ accountId }).pipe(
        Effect.provideService(CurrentPrincipal, principalOf(accountId)),
        Effect.provide(Idempotency.layerWith(options)),
        Effect.withConfigProvider(ConfigProvider.fromJson({ PRESSROOM_IDEMPOTENCY_TTL_SECONDS: options.ttlSeconds ?? 86_400 }))
      )
    })
  )

/** An operation that counts its executions and answers 201 with a body naming the execution. */
const counted =
  (counter: Ref.Ref<number>, extra: Effect.Effect<void> = Effect.void) =>
  (requestSha256: string) =>
    Effect.gen(function* () {
      const n = yield* Ref.updateAndGet(counter, (n) => n + 1)
      yield* extra
      return HttpServerResponse.unsafeJson({ execution: n, requestSha256 }, { status: 201, headers: { location: `/things/${n}` } })
    })

const bodyOf = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(response.body.body)) : undefined

const request = { operation: "things.create", key: "key-0001-abcdef", pathParams: {}, body: { name: "a" } }

/** The records of the current principal (tests share a database, each with its own account). */
const recordCount = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const { accountId } = yield* CurrentPrincipal
  const rows = yield* sql<{ n: number }>`select count(*)::int as n from idempotency_records where account_id = ${accountId}`
  return rows[0]!.n
}).pipe(Effect.orDie)

/** The failure as a client would read it: the published error, its class and its response headers. */
const failureOf = <A>(either: Either.Either<A, PressroomError>) => {
  if (Either.isRight(either)) throw new Error("expected a failure")
  return { ...publishingError(either.left), tag: either.left._tag, headers: errorHeaders(either.left) }
}

t.test("Idempotency", (t) =>
  forEachDatabase(t, async (t: TestContext, testDatabase) => {
    // One open database for every case (PGlite takes seconds to open), closed before it is dropped.
    const database: Database = ManagedRuntime.make(testDatabase.layer)
    try {
      await t.test("executes once and replays status, headers and body", async (t) => {
        const result = await withService(database, () =>
          Effect.gen(function* () {
            const idempotency = yield* Idempotency
            const counter = yield* Ref.make(0)
            const first = yield* idempotency.run(request, counted(counter))
            const second = yield* idempotency.run(request, counted(counter))
            return { first, second, executions: yield* Ref.get(counter), records: yield* recordCount }
          })
        )
        t.equal(result.executions, 1, "the operation ran once")
        t.equal(result.first.status, 201)
        t.equal(result.first.headers["idempotency-replayed"], undefined, "the first response is not a replay")
        t.equal(result.second.status, 201, "the replay has the saved status")
        t.equal(result.second.headers["idempotency-replayed"], "true")
        t.equal(result.second.headers.location, "/things/1", "the replay has the saved Location")
        t.same(bodyOf(result.second), bodyOf(result.first), "the replay has the saved body")
        t.equal(result.second.body._tag === "Uint8Array" && result.second.body.contentType, "application/json")
        t.equal(
          bodyOf(result.first).requestSha256,
          jcsSha256({ operation: request.operation, pathParams: {}, body: { name: "a" } }),
          "the operation receives the canonical request hash"
        )
        t.equal(result.records, 1)
      })

      await t.test("a key is scoped to its operation and owner", async (t) => {
        const executions = await withService(database, ({ accountId }) =>
          Effect.gen(function* () {
            const idempotency = yield* Idempotency
            const counter = yield* Ref.make(0)
            yield* idempotency.run(request, counted(counter))
            yield* idempotency.run({ ...request, operation: "things.delete" }, counted(counter))
            const other = yield* Effect.orDie(insertAccountWithKey())
            yield* idempotency.run(request, counted(counter)).pipe(Effect.provideService(CurrentPrincipal, principalOf(other.accountId)))
            t.not(other.accountId, accountId)
            return yield* Ref.get(counter)
          })
        )
        t.equal(executions, 3, "another operation or another owner with the same key executes")
      })

      await t.test("the same key with another request is a conflict", async (t) => {
        const result = await withService(database, () =>
          Effect.gen(function* () {
            const idempotency = yield* Idempotency
            const counter = yield* Ref.make(0)
            yield* idempotency.run(request, counted(counter))
            const other = yield* Effect.either(idempotency.run({ ...request, body: { name: "b" } }, counted(counter)))
            const otherPath = yield* Effect.either(idempotency.run({ ...request, pathParams: { id: "x" } }, counted(counter)))
            return { other, otherPath, executions: yield* Ref.get(counter) }
          })
        )
        for (const either of [result.other, result.otherPath]) {
          const error = failureOf(either)
          t.equal(error.code, "idempotency_conflict")
          t.equal(error.httpStatus, 409)
          t.equal(error.retryable, false)
        }
        t.equal(result.executions, 1)
      })

      await t.test("an error is saved and replayed as the same error", async (t) => {
        const result = await withService(database, () =>
          Effect.gen(function* () {
            const idempotency = yield* Idempotency
            const counter = yield* Ref.make(0)
            const refuse = () =>
              Effect.zipRight(
                Ref.update(counter, (n) => n + 1),
                Effect.fail(InvalidRequest.unprocessable("options.paper: must be a4", "options.paper"))
              )
            const first = yield* Effect.either(idempotency.run(request, refuse))
            const second = yield* Effect.either(idempotency.run(request, refuse))
            return { first, second, executions: yield* Ref.get(counter) }
          })
        )
        const first = failureOf(result.first)
        const second = failureOf(result.second)
        t.equal(result.executions, 1, "the refused request is not executed again")
        t.equal(second.tag, "PublishedError", "the replay answers the saved error as published")
        t.same(
          { code: second.code, httpStatus: second.httpStatus, message: second.message, retryable: second.retryable },
          { code: first.code, httpStatus: first.httpStatus, message: first.message, retryable: first.retryable }
        )
        t.equal(second.headers?.["idempotency-replayed"], "true", "the replayed error is marked as a replay")
        t.equal(first.headers?.["idempotency-replayed"], undefined)
      })

      await t.test("429, 503 and defects are not saved: a retry executes afresh", async (t) => {
        const result = await withService(database, () =>
          Effect.gen(function* () {
            const idempotency = yield* Idempotency
            const counter = yield* Ref.make(0)
            const failing = (failure: Effect.Effect<never, PressroomError>) => () =>
              Effect.zipRight(
                Ref.update(counter, (n) => n + 1),
                failure
              )
            const limited = yield* Effect.either(idempotency.run(request, failing(Effect.fail(new RateLimited({ retryAfterSeconds: 3 })))))
            const recordsAfterLimit = yield* recordCount
            const unavailable = yield* Effect.either(
              idempotency.run(request, failing(Effect.fail(new ServiceUnavailable({ message: "down", retryAfterSeconds: 5 }))))
            )
            const defect = yield* Effect.exit(idempotency.run(request, failing(Effect.die(new Error("boom")))))
            const recordsAfterDefect = yield* recordCount
            const success = yield* idempotency.run(request, counted(counter))
            return { limited, unavailable, defect, success, recordsAfterLimit, recordsAfterDefect, executions: yield* Ref.get(counter) }
          })
        )
        t.equal(failureOf(result.limited).httpStatus, 429)
        t.equal(result.recordsAfterLimit, 0, "a 429 leaves no record")
        t.equal(failureOf(result.unavailable).httpStatus, 503)
        t.ok(Exit.isFailure(result.defect), "the defect propagates")
        t.equal(result.recordsAfterDefect, 0, "a defect leaves no record")
        t.equal(result.success.status, 201)
        t.equal(result.success.headers["idempotency-replayed"], undefined, "the retry ran, it is no replay")
        t.equal(result.executions, 4)
      })

      await t.test("an outcome the database cannot store frees the key: the client gets it, a retry executes afresh", async (t) => {
        const result = await withService(database, () =>
          Effect.gen(function* () {
            const idempotency = yield* Idempotency
            const counter = yield* Ref.make(0)
            // PostgreSQL stores no U+0000 in jsonb, where the saved error goes.
            const unstorable = () =>
              Effect.zipRight(
                Ref.update(counter, (n) => n + 1),
                Effect.fail(new InvalidRequest({ status: 422, message: "a\u0000b" }))
              )
            const first = yield* Effect.either(idempotency.run(request, unstorable))
            const records = yield* recordCount
            const retry = yield* Effect.either(idempotency.run(request, unstorable))
            return { first, records, retry, executions: yield* Ref.get(counter) }
          })
        )
        t.equal(failureOf(result.first).httpStatus, 422, "the client gets the outcome, not a 500")
        t.equal(result.records, 0, "no record is left in progress")
        t.equal(failureOf(result.retry).httpStatus, 422, "the retry is no 409")
        t.equal(result.executions, 2, "the retry executed afresh")
      })

      await t.test("concurrent duplicates: one execution, the others wait and replay it", async (t) => {
        const result = await withService(
          database,
          () =>
            Effect.gen(function* () {
              const idempotency = yield* Idempotency
              const counter = yield* Ref.make(0)
              const responses = yield* Effect.all(
                Array.from({ length: 10 }, () => idempotency.run(request, counted(counter, Effect.sleep("300 millis")))),
                { concurrency: "unbounded" }
              )
              return { responses, executions: yield* Ref.get(counter) }
            }),
          { inProgressWait: "10 seconds" }
        )
        t.equal(result.executions, 1)
        t.same(new Set(result.responses.map((r) => JSON.stringify(bodyOf(r)))).size, 1, "every response has the same body")
        t.same(
          result.responses.map((r) => r.status),
          Array(10).fill(201)
        )
        t.equal(result.responses.filter((r) => r.headers["idempotency-replayed"] === "true").length, 9, "all but one are replays")
      })

      await t.test("a duplicate still in progress after the wait gets a retryable 409", async (t) => {
        const result = await withService(
          database,
          () =>
            Effect.gen(function* () {
              const idempotency = yield* Idempotency
              const counter = yield* Ref.make(0)
              const gate = yield* Deferred.make<void>()
              const first = yield* Effect.fork(idempotency.run(request, counted(counter, Deferred.await(gate))))
              yield* Effect.sleep("100 millis")
              const duplicate = yield* Effect.either(idempotency.run(request, counted(counter)))
              yield* Deferred.succeed(gate, undefined)
              const original = yield* Fiber.join(first)
              const later = yield* idempotency.run(request, counted(counter))
              return { duplicate, original, later, executions: yield* Ref.get(counter) }
            }),
          { inProgressWait: "300 millis" }
        )
        const conflict = failureOf(result.duplicate)
        t.equal(conflict.code, "idempotency_conflict")
        t.equal(conflict.retryable, true)
        t.equal(conflict.details?.currentState, "in_progress")
        t.equal(result.later.headers["idempotency-replayed"], "true", "once finished, the result is replayed")
        t.same(bodyOf(result.later), bodyOf(result.original))
        t.equal(result.executions, 1)
      })

      await t.test("an interrupted request still finishes and saves its result", async (t) => {
        const result = await withService(database, () =>
          Effect.gen(function* () {
            const idempotency = yield* Idempotency
            const counter = yield* Ref.make(0)
            const fiber = yield* Effect.fork(idempotency.run(request, counted(counter, Effect.sleep("200 millis"))))
            yield* Effect.sleep("50 millis")
            yield* Fiber.interrupt(fiber)
            const retry = yield* idempotency.run(request, counted(counter))
            return { retry, executions: yield* Ref.get(counter) }
          })
        )
        t.equal(result.executions, 1)
        t.equal(result.retry.headers["idempotency-replayed"], "true")
      })

      await t.test("a request interrupted while it claims the key still executes and saves its result", async (t) => {
        for (let round = 0; round < 5; round++) {
          const result = await withService(database, () =>
            Effect.gen(function* () {
              const idempotency = yield* Idempotency
              const counter = yield* Ref.make(0)
              // Interrupted at once: the claim's statement is in flight, not yet the execution.
              const fiber = yield* Effect.fork(idempotency.run(request, counted(counter)))
              yield* Effect.yieldNow()
              yield* Fiber.interrupt(fiber)
              const retry = yield* Effect.either(idempotency.run(request, counted(counter)))
              return { retry, executions: yield* Ref.get(counter) }
            })
          )
          t.equal(result.executions, 1, `round ${round}: one execution`)
          t.ok(
            Either.isRight(result.retry) && result.retry.right.headers["idempotency-replayed"] === "true",
            `round ${round}: the retry replays it`
          )
        }
      })

      await t.test("an expired record is neither replayed nor a conflict, and is purged", async (t) => {
        const result = await withService(database, ({ accountId }) =>
          Effect.gen(function* () {
            const idempotency = yield* Idempotency
            const sql = yield* SqlClient.SqlClient
            const counter = yield* Ref.make(0)
            yield* idempotency.run(request, counted(counter))
            yield* Effect.orDie(
              sql`update idempotency_records set expires_at = now() - interval '1 second' where account_id = ${accountId}`
            )
            const afterExpiry = yield* idempotency.run({ ...request, body: { name: "changed" } }, counted(counter))
            yield* idempotency.run({ ...request, key: "another-key-1" }, counted(counter))
            yield* Effect.orDie(
              sql`update idempotency_records set expires_at = now() - interval '1 second' where account_id = ${accountId} and key = 'another-key-1'`
            )
            const purged = yield* idempotency.purgeExpired
            return { afterExpiry, purged, records: yield* recordCount, executions: yield* Ref.get(counter) }
          })
        )
        t.equal(result.afterExpiry.headers["idempotency-replayed"], undefined, "the expired record was replaced")
        t.equal(result.executions, 3)
        t.equal(result.purged, 1, "the sweep removes expired records")
        t.equal(result.records, 1, "and keeps live ones")
      })

      await t.test("records expire after PRESSROOM_IDEMPOTENCY_TTL_SECONDS", async (t) => {
        const expiresIn = await withService(
          database,
          ({ accountId }) =>
            Effect.gen(function* () {
              const idempotency = yield* Idempotency
              const sql = yield* SqlClient.SqlClient
              yield* idempotency.run(request, counted(yield* Ref.make(0)))
              const rows = yield* Effect.orDie(sql<{ seconds: number }>`
              select extract(epoch from expires_at - created_at)::float8 as seconds from idempotency_records where account_id = ${accountId}`)
              return rows[0]!.seconds
            }),
          { inProgressWait: "1 second", ttlSeconds: 120 }
        )
        t.equal(Math.round(expiresIn), 120)
      })

      if (testDatabase.kind === "postgres") {
        await t.test("two processes on one PostgreSQL: one execution, the other replays", async (t) => {
          const result = await database.runPromise(
            Effect.gen(function* () {
              const { accountId } = yield* Effect.orDie(insertAccountWithKey())
              const counter = yield* Ref.make(0)
              const oneProcess = () =>
                Effect.flatMap(Idempotency, (idempotency) => idempotency.run(request, counted(counter, Effect.sleep("500 millis")))).pipe(
                  Effect.provide(Idempotency.layerWith({ inProgressWait: "10 seconds" })),
                  // Its own connection pool and its own listener, as another server process has.
                  Effect.provide(testDatabase.layer),
                  Effect.provideService(CurrentPrincipal, principalOf(accountId))
                )
              const responses = yield* Effect.all([oneProcess(), oneProcess(), oneProcess()], { concurrency: "unbounded" })
              return { responses, executions: yield* Ref.get(counter) }
            })
          )
          t.equal(result.executions, 1)
          t.equal(result.responses.filter((r) => r.headers["idempotency-replayed"] === "true").length, 2)
          t.equal(new Set(result.responses.map((r) => JSON.stringify(bodyOf(r)))).size, 1)
        })
      }
    } finally {
      await database.dispose()
    }
  })
)
