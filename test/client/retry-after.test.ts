/**
 * How long the client waits before retrying an answer (specification: Retry-After is seconds or
 * an HTTP date; details.retryAfterSeconds says the same in the body): the header first, the
 * body's figure when the header is missing or unreadable, nothing for other failures.
 */
import { Duration, Option } from "effect"
import t from "tap"
import { retryAfterOf } from "../../src/client/retry.ts"
import { PublishedError, publishingError, RateLimited } from "../../src/shared/errors.ts"

/** A 429 as the client decodes it, with the answer's `headers`, and `retryAfterSeconds` in its details unless undefined. */
const rateLimited = (headers: Record<string, string>, retryAfterSeconds?: number) => {
  const { details: _, ...error } = publishingError(new RateLimited({ retryAfterSeconds: retryAfterSeconds ?? 1 }))
  return new PublishedError({ error: retryAfterSeconds === undefined ? error : { ...error, details: { retryAfterSeconds } }, headers })
}

const millis = (delay: Option.Option<Duration.Duration>) => Option.map(delay, Duration.toMillis)

t.test("Retry-After", async (t) => {
  t.same(millis(retryAfterOf(rateLimited({ "retry-after": "2" }, 7))), Option.some(2000), "the header's seconds, over the body's")
  const inFive = new Date(Date.now() + 5000).toUTCString()
  const fromDate = Option.getOrThrow(millis(retryAfterOf(rateLimited({ "retry-after": inFive }))))
  t.ok(fromDate > 3000 && fromDate <= 5000, `an HTTP date: until then (${fromDate} ms)`)
  t.same(millis(retryAfterOf(rateLimited({ "retry-after": "soon" }, 3))), Option.some(3000), "an unreadable header: the body's figure")
  t.same(millis(retryAfterOf(rateLimited({}, 3))), Option.some(3000), "no header: the body's figure")
  t.same(retryAfterOf(rateLimited({})), Option.none(), "neither: the backoff decides")
  t.same(retryAfterOf(new Error("connection reset")), Option.none(), "not an answer: the backoff decides")
})
