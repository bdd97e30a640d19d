/**
 * When the client tries a call again (specification section 4, retry guidance): when the answer's
 * error says `retryable: true` (429, 503, a lost reservation race, an idempotent request still
 * running, 500), or when no answer came (connection refused or reset, timeout) and resending is
 * safe: a GET or HEAD, or a request with an Idempotency-Key, which every retry reuses. A 400, 404,
 * 409 (but those two), 422 is answered `retryable: false` and never retried. The delay is the
 * answer's `Retry-After` when it has one, else exponential backoff with full jitter, capped.
 */
import * as HttpClientError from "@effect/platform/HttpClientError"
import { Cause, Duration, Option, Schedule } from "effect"
import { PublishedError } from "../shared/errors.ts"

export interface RetryOptions {
  /** Tries of one call in all, the first included (default 4); 1 turns retries off. */
  readonly maxAttempts?: number
  /** The backoff before the first retry, doubling after (default 500 ms). */
  readonly baseDelay?: Duration.DurationInput
  /** The longest backoff (default 10 s); a `Retry-After` is honoured whatever it says. */
  readonly maxDelay?: Duration.DurationInput
}

/** Seconds, or an HTTP date (specification: Retry-After), as a delay from now. */
const parseRetryAfter = (value: string, now: number): Option.Option<Duration.Duration> => {
  if (/^\d+$/.test(value.trim())) return Option.some(Duration.seconds(Number(value)))
  const at = Date.parse(value)
  return Number.isNaN(at) ? Option.none() : Option.some(Duration.millis(Math.max(0, at - now)))
}

/** How long the server asked to wait: its Retry-After header, else `details.retryAfterSeconds`. */
export const retryAfterOf = (error: unknown): Option.Option<Duration.Duration> => {
  if (!(error instanceof PublishedError)) return Option.none()
  const header = error.headers["retry-after"]
  return Option.orElse(header === undefined ? Option.none() : parseRetryAfter(header, Date.now()), () =>
    Option.map(Option.fromNullable(error.error.details?.retryAfterSeconds), Duration.seconds)
  )
}

/** Whether the failure may be retried; `resendable` when the request is safe to send twice. */
export const isRetryable = (error: unknown, resendable: boolean): boolean => {
  if (error instanceof PublishedError) return error.error.retryable
  const noAnswer =
    (HttpClientError.isHttpClientError(error) && error._tag === "RequestError" && error.reason === "Transport") ||
    Cause.isTimeoutException(error)
  return noAnswer && resendable
}

/** The schedule of one call's retries, fed with its failures. */
export const retrySchedule = <E>(options: RetryOptions, resendable: boolean): Schedule.Schedule<unknown, E> => {
  const maxDelay = Duration.decode(options.maxDelay ?? "10 seconds")
  const backoff = Schedule.exponential(options.baseDelay ?? "500 millis").pipe(
    Schedule.modifyDelay((_, delay) => Duration.min(delay, maxDelay)),
    // Full jitter: anywhere from nothing to the whole backoff.
    Schedule.jitteredWith({ min: 0, max: 1 })
  )
  return Schedule.identity<E>().pipe(
    Schedule.intersect(backoff),
    Schedule.modifyDelay(([error], delay) => Option.getOrElse(retryAfterOf(error), () => delay)),
    Schedule.intersect(Schedule.recurs(Math.max(0, (options.maxAttempts ?? 4) - 1))),
    Schedule.whileInput((error: E) => isRetryable(error, resendable))
  )
}
