/**
 * Idempotent execution of mutating v2 operations (contract section 4, specification section 4).
 *
 * `run` hashes the request canonically, claims the record (owner, operation, key) in the database,
 * and executes the operation only when its claim wins; the outcome is saved and later requests with
 * the same key replay it. A duplicate that finds the first request still running waits for it (up
 * to 10 s) and replays its result, woken by a notification when the record changes and polling as a
 * fallback. Because the claim is an insert on the primary key, no two requests, in this process or
 * any other on the same database, can both execute.
 */
import type { HttpServerResponse } from "@effect/platform"
import { Cause, Clock, Duration, Effect, Exit, Layer, Option, PubSub, Queue, Stream } from "effect"
import { CurrentPrincipal } from "../accounts/principal.ts"
import { Notifications } from "../db/notifications.ts"
import { IdempotencyConflict, type PressroomError, type PublishedError, publishingError } from "../shared/errors.ts"
import { jcsSha256 } from "../shared/hash.ts"
import { idempotencyTtlSeconds } from "./config.ts"
import { CHANGES_CHANNEL, changeToken, makeIdempotencyRecords, type RecordScope } from "./records.ts"
import { captureError, captureResponse, replayError, replayResponse, type SavedOutcome } from "./saved-outcome.ts"

export interface IdempotentRequest {
  /** The operation's name (`templates.create`); records of different operations never meet. */
  readonly operation: string
  /** The `Idempotency-Key` header, validated by `IdempotencyKeyHeader`. */
  readonly key: string
  readonly pathParams: object
  /** The validated request body. */
  readonly body: unknown
  /**
   * How a response body that holds a secret is kept: sealed when saved, opened when replayed, so
   * the record holds nothing a reader of the database could use (a webhook signing secret).
   */
  readonly sealing?: ResponseSealing
}

export interface ResponseSealing {
  readonly seal: (body: string) => string
  readonly open: (sealed: string) => string
}

const sealed = (outcome: SavedOutcome, sealing: ResponseSealing | undefined, direction: keyof ResponseSealing): SavedOutcome =>
  outcome._tag === "response" && sealing && outcome.response.body !== null
    ? { _tag: "response", response: { ...outcome.response, body: sealing[direction](outcome.response.body) } }
    : outcome

export interface IdempotencyOptions {
  /** How long a duplicate waits for the request in progress before 409 (contract: 10 s). */
  readonly inProgressWait: Duration.DurationInput
}

/** Polling a record in progress starts fast and slows down; notifications usually come first. */
const FIRST_POLL_MS = 50
const LAST_POLL_MS = 1_000

/**
 * Outcomes that are not saved: 429 and 503 (contract section 4) say "try again", which a replay
 * would contradict.
 */
const isTransient = (error: PressroomError) => [429, 503].includes(publishingError(error).httpStatus)

const replay = (saved: SavedOutcome, sealing: ResponseSealing | undefined) => {
  const outcome = sealed(saved, sealing, "open")
  return outcome._tag === "response" ? Effect.succeed(replayResponse(outcome.response)) : Effect.fail(replayError(outcome.error))
}

const make = (options: IdempotencyOptions) =>
  Effect.gen(function* () {
    const records = yield* makeIdempotencyRecords
    const notifications = yield* Notifications
    const ttlSeconds = yield* idempotencyTtlSeconds
    const waitMillis = Duration.toMillis(options.inProgressWait)

    // One listener per process fans record changes out to the waiting duplicates. When it fails,
    // waiters still see changes by polling; it starts again a little later.
    const changes = yield* Effect.acquireRelease(PubSub.sliding<string>(1024), PubSub.shutdown)
    yield* notifications.listen(CHANGES_CHANNEL).pipe(
      Stream.runForEach((token) => PubSub.publish(changes, token)),
      Effect.catchAllCause((cause) => Effect.logWarning("idempotency notifications interrupted; polling meanwhile", cause)),
      Effect.zipRight(Effect.sleep("5 seconds")),
      Effect.forever,
      Effect.forkScoped
    )

    /** Resolves when the record of `token` changed, or after `millis`, whichever comes first. */
    const changeOrTimeout = (subscription: Queue.Dequeue<string>, token: string, millis: number) =>
      Effect.race(Effect.repeat(Queue.take(subscription), { until: (changed) => changed === token }), Effect.sleep(Duration.millis(millis)))

    /**
     * Saves the outcome for replays. An outcome the database refuses to store frees the key instead
     * of leaving it in progress until it expires (every retry would wait and get 409 for a day):
     * the client still gets the outcome, and a retry executes afresh.
     */
    const save = (scope: RecordScope, outcome: SavedOutcome, sealing: ResponseSealing | undefined) =>
      records
        .complete(scope, sealed(outcome, sealing, "seal"))
        .pipe(
          Effect.catchAllDefect((defect) =>
            Effect.zipRight(
              Effect.logError("an idempotency outcome could not be saved; the key is released", defect),
              records.release(scope)
            )
          )
        )

    /**
     * The request that owns the record executes. It runs uninterruptibly: once started, a client
     * that hangs up no longer stops it halfway, and its outcome is saved for the client's retry.
     * An error is saved unless transient; a defect releases the record, so a retry runs afresh.
     */
    const executeOwned = <E extends PressroomError, R>(
      scope: RecordScope,
      requestSha256: string,
      sealing: ResponseSealing | undefined,
      execute: (requestSha256: string) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) =>
      Effect.uninterruptible(
        Effect.gen(function* () {
          const exit = yield* Effect.exit(execute(requestSha256))
          if (Exit.isSuccess(exit)) {
            const response = yield* captureResponse(exit.value).pipe(Effect.tapDefect(() => records.release(scope)))
            yield* save(scope, { _tag: "response", response }, sealing)
            return exit.value
          }
          const failure = Cause.failureOption(exit.cause)
          const saved = Option.isSome(failure) && !isTransient(failure.value) && Option.isNone(Cause.dieOption(exit.cause))
          yield* saved ? save(scope, { _tag: "error", error: captureError(Option.getOrThrow(failure)) }, sealing) : records.release(scope)
          return yield* exit
        })
      )

    /**
     * Claims the record and, when the claim wins, executes, as one uninterruptible step: a request
     * interrupted between its claim and its execution (a client hanging up just then) would leave
     * the key in progress, with nobody executing, until the record expires.
     */
    const claimAndExecute = <E extends PressroomError, R>(
      scope: RecordScope,
      requestSha256: string,
      sealing: ResponseSealing | undefined,
      execute: (requestSha256: string) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) =>
      Effect.uninterruptible(
        Effect.flatMap(records.claim(scope, requestSha256, ttlSeconds), (won) =>
          won ? Effect.asSome(executeOwned(scope, requestSha256, sealing, execute)) : Effect.succeedNone
        )
      )

    const run = <E extends PressroomError, R>(
      request: IdempotentRequest,
      execute: (requestSha256: string) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, E | IdempotencyConflict | PublishedError, R | CurrentPrincipal> =>
      Effect.gen(function* () {
        const { accountId } = yield* CurrentPrincipal
        const scope: RecordScope = { accountId, operation: request.operation, key: request.key }
        const requestSha256 = jcsSha256({ operation: request.operation, pathParams: request.pathParams, body: request.body })
        const owned = yield* claimAndExecute(scope, requestSha256, request.sealing, execute)
        if (Option.isSome(owned)) return owned.value

        // Another request holds the key. Subscribe before looking, so no change goes unseen.
        const deadline = (yield* Clock.currentTimeMillis) + waitMillis
        const token = changeToken(scope)
        return yield* Effect.scoped(
          Effect.gen(function* () {
            const subscription = yield* PubSub.subscribe(changes)
            for (let poll = FIRST_POLL_MS; ; poll = Math.min(2 * poll, LAST_POLL_MS)) {
              const record = yield* records.find(scope)
              if (Option.isNone(record)) {
                // Released after a transient failure or a defect, or just expired: try to own it.
                const owned = yield* claimAndExecute(scope, requestSha256, request.sealing, execute)
                if (Option.isSome(owned)) return owned.value
                continue
              }
              if (record.value.requestSha256 !== requestSha256) {
                return yield* Effect.fail(
                  new IdempotencyConflict({ message: "the Idempotency-Key was already used with a different request", inProgress: false })
                )
              }
              if (Option.isSome(record.value.outcome)) return yield* replay(record.value.outcome.value, request.sealing)
              const remaining = deadline - (yield* Clock.currentTimeMillis)
              if (remaining <= 0) {
                return yield* Effect.fail(
                  new IdempotencyConflict({
                    message: "a request with this Idempotency-Key is still in progress; retry later",
                    inProgress: true
                  })
                )
              }
              yield* changeOrTimeout(subscription, token, Math.min(poll, remaining))
            }
          })
        )
      })

    return { run, purgeExpired: records.purgeExpired } as const
  })

export class Idempotency extends Effect.Service<Idempotency>()("pressroom/Idempotency", {
  scoped: make({ inProgressWait: Duration.seconds(10) })
}) {
  /** The service with other options, for tests that cannot wait 10 s. */
  static readonly layerWith = (options: IdempotencyOptions) => Layer.scoped(Idempotency, Effect.map(make(options), Idempotency.make))
}
