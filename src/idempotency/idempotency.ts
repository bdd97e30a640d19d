/**
 * Idempotent execution of mutating v2 operations (contract section 4, specification section 4).
 *
 * `once` claims the record (owner, operation, key) of a canonically hashed request in the database,
 * and executes the operation only when its claim wins; the outcome is saved and later requests with
 * the same key replay it. A duplicate that finds the first request still running waits for it (up
 * to 10 s) and replays its result, woken by a notification when the record changes and polling as a
 * fallback. Because the claim is an insert on the primary key, no two requests, in this process or
 * any other on the same database, can both execute. A caller admits its request, then gives
 * `once` its body as an effect and a codec for its outcome: an HTTP response (`run`, for REST), or
 * a value (an MCP tool's result).
 */
import type { HttpServerResponse } from "@effect/platform"
import { Cause, Clock, Duration, Effect, Exit, Fiber, Layer, Option, PubSub, Queue, Stream } from "effect"
import { CurrentPrincipal } from "../accounts/principal.ts"
import { Notifications } from "../db/notifications.ts"
import { IdempotencyConflict, type PressroomError, type PublishedError, publishingError } from "../shared/errors.ts"
import { jcsSha256 } from "../shared/hash.ts"
import { idempotencyTtlSeconds } from "./config.ts"
import { CHANGES_CHANNEL, changeToken, makeIdempotencyRecords, type RecordScope } from "./records.ts"
import { captureError, httpOutcome, type OutcomeCodec, type ResponseSealing, type SavedOutcome } from "./saved-outcome.ts"

/** One execution's identity: the record's scope within the owner, and the canonical hash of what was asked. */
export interface IdempotentRequest {
  /** The operation's name (`templates.create`, or an MCP tool's name); records of different operations never meet. */
  readonly operation: string
  /** The idempotency key, validated by `IdempotencyKey`. */
  readonly key: string
  /** The canonical request hash: a replay needs the same one, and a job records it as `requestSha256`. */
  readonly requestSha256: string
}

/** The REST form of a request: its hash is SHA-256 of the JCS of `{ operation, pathParams, body }` (contract section 4). */
export const restRequest = (operation: string, key: string, pathParams: object, body: unknown): IdempotentRequest => ({
  operation,
  key,
  requestSha256: jcsSha256({ operation, pathParams, body })
})

const sealed = (outcome: SavedOutcome, sealing: ResponseSealing | undefined, direction: keyof ResponseSealing): SavedOutcome =>
  outcome._tag === "response" && sealing && outcome.response.body !== null
    ? { _tag: "response", response: { ...outcome.response, body: sealing[direction](outcome.response.body) } }
    : outcome

export type { OutcomeCodec, ResponseSealing }

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

const replay = <A>(saved: SavedOutcome, codec: OutcomeCodec<A>) => {
  const outcome = sealed(saved, codec.sealing, "open")
  return outcome._tag === "response" ? Effect.succeed(codec.replay(outcome.response)) : Effect.fail(codec.replayError(outcome.error))
}

const make = (options: IdempotencyOptions) =>
  Effect.gen(function* () {
    const records = yield* makeIdempotencyRecords
    const notifications = yield* Notifications
    const ttlSeconds = yield* idempotencyTtlSeconds
    const waitMillis = Duration.toMillis(options.inProgressWait)
    // Executions run in this scope, not in their caller's fiber: see `claimAndExecute`.
    const executions = yield* Effect.scope

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
     * The body of the request that owns the record, then its outcome saved. The body itself is
     * interruptible (its own timeouts work: the synchronous wait ends at the threshold), but only
     * this service's scope can interrupt it, at shutdown; the saving is not. An error is saved
     * unless transient; a defect or an interruption releases the record, so a retry runs afresh.
     */
    const executeOwned = <A, E extends PressroomError, R>(scope: RecordScope, codec: OutcomeCodec<A>, body: Effect.Effect<A, E, R>) =>
      Effect.uninterruptible(
        Effect.gen(function* () {
          // Interruptible in itself (its timeouts work), and yet by nobody else than this
          // service's scope: no caller holds its fiber.
          const exit = yield* Effect.exit(Effect.interruptible(body))
          if (Exit.isSuccess(exit)) {
            const response = yield* codec.save(exit.value).pipe(Effect.tapDefect(() => records.release(scope)))
            yield* save(scope, { _tag: "response", response }, codec.sealing)
            return exit.value
          }
          const failure = Cause.failureOption(exit.cause)
          const saved = Option.isSome(failure) && !isTransient(failure.value) && Option.isNone(Cause.dieOption(exit.cause))
          yield* saved
            ? save(scope, { _tag: "error", error: captureError(Option.getOrThrow(failure)) }, codec.sealing)
            : records.release(scope)
          return yield* exit
        })
      )

    /**
     * Claims the record and, when the claim wins, starts the execution in this service's scope,
     * both in one step that cannot be interrupted: a request interrupted between its claim and
     * its execution (a client hanging up just then) would leave the key in progress, with nobody
     * executing, until the record expires. The caller then waits for the execution; a caller that
     * stops waiting (its client hung up) leaves it to finish and save its outcome for the retry.
     */
    const claimAndExecute = <A, E extends PressroomError, R>(
      scope: RecordScope,
      requestSha256: string,
      codec: OutcomeCodec<A>,
      body: Effect.Effect<A, E, R>
    ) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(records.claim(scope, requestSha256, ttlSeconds), (won) =>
          won
            ? Effect.flatMap(Effect.forkIn(executeOwned(scope, codec, body), executions), (fiber) =>
                Effect.asSome(restore(Fiber.join(fiber)))
              )
            : Effect.succeedNone
        )
      )

    /**
     * `body`, executed at most once for the owner's (operation, key): the outcome of the first
     * request with the key is saved through `codec`, and every later request with the same key
     * and hash gets it back without executing anything.
     */
    const once = <A, E extends PressroomError, R>(
      request: IdempotentRequest,
      codec: OutcomeCodec<A>,
      body: Effect.Effect<A, E, R>
    ): Effect.Effect<A, E | IdempotencyConflict | PublishedError, R | CurrentPrincipal> =>
      Effect.gen(function* () {
        const { accountId } = yield* CurrentPrincipal
        const { requestSha256 } = request
        const scope: RecordScope = { accountId, operation: request.operation, key: request.key }
        const owned = yield* claimAndExecute(scope, requestSha256, codec, body)
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
                const owned = yield* claimAndExecute(scope, requestSha256, codec, body)
                if (Option.isSome(owned)) return owned.value
                continue
              }
              if (record.value.requestSha256 !== requestSha256) {
                return yield* Effect.fail(
                  new IdempotencyConflict({ message: "the idempotency key was already used with a different request", inProgress: false })
                )
              }
              if (Option.isSome(record.value.outcome)) return yield* replay(record.value.outcome.value, codec)
              const remaining = deadline - (yield* Clock.currentTimeMillis)
              if (remaining <= 0) {
                return yield* Effect.fail(
                  new IdempotencyConflict({
                    message: "a request with this idempotency key is still in progress; retry later",
                    inProgress: true
                  })
                )
              }
              yield* changeOrTimeout(subscription, token, Math.min(poll, remaining))
            }
          })
        )
      })

    /** A REST mutation: `execute` given the request's hash, its response saved and replayed with `Idempotency-Replayed: true`. */
    const run = <E extends PressroomError, R>(
      request: RestIdempotentRequest,
      execute: (requestSha256: string) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) => {
      const identity = restRequest(request.operation, request.key, request.pathParams, request.body)
      return once(
        identity,
        httpOutcome(request.sealing),
        Effect.suspend(() => execute(identity.requestSha256))
      )
    }

    return { once, run, purgeExpired: records.purgeExpired } as const
  })

/** A REST mutation as its handler knows it. */
export interface RestIdempotentRequest {
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

export class Idempotency extends Effect.Service<Idempotency>()("pressroom/Idempotency", {
  scoped: make({ inProgressWait: Duration.seconds(10) })
}) {
  /** The service with other options, for tests that cannot wait 10 s. */
  static readonly layerWith = (options: IdempotencyOptions) => Layer.scoped(Idempotency, Effect.map(make(options), Idempotency.make))
}
