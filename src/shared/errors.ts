/**
 * The errors a client may see (specification section 7, contract section 3): one tagged error per
 * code, annotated with its HTTP status, failed with by domain code. `publishingError` is their one
 * mapping to the specification's `PublishingError`; src/http/error-envelope.ts writes it in the
 * envelope of the request's API. Nothing here knows about requests or responses.
 *
 * Two codes are never failed with: `rendering_failed` and `job_cancelled` end a job and are carried
 * in `job.error` (jobs/job-errors.ts). A response that passes on an error already in its published
 * form (a failed job's, or one an idempotency record replays) fails with `PublishedError`.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"

export const ErrorCategory = Schema.Literal(
  "input",
  "authentication",
  "authorization",
  "entitlement",
  "conflict",
  "render",
  "storage",
  "delivery",
  "internal"
)
export type ErrorCategory = typeof ErrorCategory.Type

export const ErrorCode = Schema.Literal(
  "invalid_request",
  "unauthorized",
  "forbidden",
  "not_found",
  "idempotency_conflict",
  "quota_exhausted",
  "rate_limited",
  "service_unavailable",
  "artifact_expired",
  "reservation_conflict",
  "invalid_state_transition",
  "rendering_failed",
  "artifact_unavailable",
  "job_cancelled",
  "internal_error"
)
export type ErrorCode = typeof ErrorCode.Type

export const categoryOf: Readonly<Record<ErrorCode, ErrorCategory>> = {
  invalid_request: "input",
  unauthorized: "authentication",
  forbidden: "authorization",
  not_found: "authorization",
  idempotency_conflict: "conflict",
  quota_exhausted: "entitlement",
  rate_limited: "entitlement",
  service_unavailable: "internal",
  artifact_expired: "storage",
  reservation_conflict: "conflict",
  invalid_state_transition: "conflict",
  rendering_failed: "render",
  artifact_unavailable: "storage",
  job_cancelled: "conflict",
  internal_error: "internal"
}

const State = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(40))

export const ErrorDetails = Schema.Struct({
  correlationId: Schema.optional(Schema.UUID),
  retryAfterSeconds: Schema.optional(Schema.Int),
  currentState: Schema.optional(State),
  expectedStates: Schema.optional(Schema.Array(State))
})
export type ErrorDetails = typeof ErrorDetails.Type

/** PublishingError (specification section 7): the error as a response and a job carry it. */
export const PublishingError = Schema.Struct({
  category: ErrorCategory,
  code: ErrorCode,
  httpStatus: Schema.Int,
  message: Schema.String,
  retryable: Schema.Boolean,
  details: Schema.optional(ErrorDetails)
}).annotations({ identifier: "PublishingError" })
export type PublishingError = typeof PublishingError.Type

/**
 * The request cannot be taken as sent: 400 malformed (shape, header, path), 405 a method the path
 * does not take (`allow` lists those it does), 413 too large, 415 not JSON, 422 well formed but its
 * content cannot be accepted (`field` names what). 408 (not received in time) and 431 (headers too
 * large) answer what Node's HTTP parser refuses before any handler runs (src/http/connections.ts).
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()(
  "InvalidRequest",
  {
    status: Schema.Literal(400, 405, 408, 413, 415, 422, 431),
    message: Schema.String,
    field: Schema.optional(Schema.String),
    allow: Schema.optional(Schema.Array(Schema.String))
  },
  HttpApiSchema.annotations({ status: 422 })
) {
  /** 422: the content of `field` (when one is to blame) cannot be accepted. */
  static unprocessable(message: string, field?: string): InvalidRequest {
    return new InvalidRequest({ status: 422, message, ...(field === undefined ? {} : { field }) })
  }
  static malformed(message: string): InvalidRequest {
    return new InvalidRequest({ status: 400, message })
  }
}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  {
    message: Schema.String
  },
  HttpApiSchema.annotations({ status: 401 })
) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  {
    /** The scopes of which the key lacks every one. */
    scopes: Schema.Array(Schema.String),
    /** Why, when the refusal is not about a key's scopes (a download link that does not hold). */
    reason: Schema.optional(Schema.String)
  },
  HttpApiSchema.annotations({ status: 403 })
) {
  override get message() {
    return this.reason ?? `the API key lacks the scope ${this.scopes.join(" or ")}`
  }
}

/** Missing, or not this owner's: the two are not told apart (specification section 5, rule 7). */
export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  {
    resource: Schema.String
  },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return `${this.resource} not found`
  }
}

export class QuotaExhausted extends Schema.TaggedError<QuotaExhausted>()("QuotaExhausted", {}, HttpApiSchema.annotations({ status: 402 })) {
  override get message() {
    return "the final publication entitlement is exhausted"
  }
}

export class RateLimited extends Schema.TaggedError<RateLimited>()(
  "RateLimited",
  {
    retryAfterSeconds: Schema.Int
  },
  HttpApiSchema.annotations({ status: 429 })
) {
  override get message() {
    return "too many requests; retry later"
  }
}

/** The Idempotency-Key is taken by another request, or by this one while it still runs (`inProgress`). */
export class IdempotencyConflict extends Schema.TaggedError<IdempotencyConflict>()(
  "IdempotencyConflict",
  {
    message: Schema.String,
    inProgress: Schema.Boolean
  },
  HttpApiSchema.annotations({ status: 409 })
) {}

/** A unit reservation lost a race it may win on retry. */
export class ReservationConflict extends Schema.TaggedError<ReservationConflict>()(
  "ReservationConflict",
  {},
  HttpApiSchema.annotations({ status: 409 })
) {
  override get message() {
    return "a unit reservation lost a race; retry"
  }
}

export class InvalidStateTransition extends Schema.TaggedError<InvalidStateTransition>()(
  "InvalidStateTransition",
  {
    currentState: Schema.String,
    expectedStates: Schema.Array(Schema.String)
  },
  HttpApiSchema.annotations({ status: 409 })
) {
  override get message() {
    return `the resource is ${this.currentState}`
  }
}

export class ArtifactExpired extends Schema.TaggedError<ArtifactExpired>()(
  "ArtifactExpired",
  {},
  HttpApiSchema.annotations({ status: 410 })
) {
  override get message() {
    return "the artifact expired or was deleted"
  }
}

/** Stored bytes are temporarily unreadable. */
/** How soon a download whose bytes were unreadable may be tried again. */
const ARTIFACT_RETRY_AFTER_SECONDS = 5

export class ArtifactUnavailable extends Schema.TaggedError<ArtifactUnavailable>()(
  "ArtifactUnavailable",
  {},
  HttpApiSchema.annotations({ status: 503 })
) {
  override get message() {
    return "the artifact is temporarily unreadable; retry"
  }
}

/** A dependency (queue, renderer, storage) is temporarily unavailable. */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  {
    message: Schema.String,
    retryAfterSeconds: Schema.Int
  },
  HttpApiSchema.annotations({ status: 503 })
) {}

export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", {}, HttpApiSchema.annotations({ status: 500 })) {
  override get message() {
    return "an unexpected error occurred; retry later"
  }
}

/**
 * An error already in its published form, answered as it is with `headers`: a failed job's
 * (`job.error`, which a v1 conversion answers with), or the one an earlier request with the same
 * Idempotency-Key got (with the headers it had, and `Idempotency-Replayed: true`). A client
 * decoding an error response gets one too.
 */
export class PublishedError extends Schema.TaggedError<PublishedError>()("PublishedError", {
  error: PublishingError,
  headers: Schema.Record({ key: Schema.String, value: Schema.String })
}) {
  override get message() {
    return this.error.message
  }
}

/** Every error a client may be answered with. */
export type PressroomError =
  | InvalidRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | QuotaExhausted
  | RateLimited
  | IdempotencyConflict
  | ReservationConflict
  | InvalidStateTransition
  | ArtifactExpired
  | ArtifactUnavailable
  | ServiceUnavailable
  | InternalError
  | PublishedError

const ERROR_TAGS: ReadonlySet<string> = new Set([
  "InvalidRequest",
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "QuotaExhausted",
  "RateLimited",
  "IdempotencyConflict",
  "ReservationConflict",
  "InvalidStateTransition",
  "ArtifactExpired",
  "ArtifactUnavailable",
  "ServiceUnavailable",
  "InternalError",
  "PublishedError"
] satisfies ReadonlyArray<PressroomError["_tag"]>)

export const isPressroomError = (u: unknown): u is PressroomError =>
  typeof u === "object" && u !== null && ERROR_TAGS.has((u as { _tag?: string })._tag ?? "")

const published = (code: ErrorCode, httpStatus: number, message: string, retryable: boolean, details?: ErrorDetails): PublishingError => ({
  category: categoryOf[code],
  code,
  httpStatus,
  message,
  retryable,
  ...(details ? { details } : {})
})

/** The error as the specification publishes it (without the request's correlation id). */
export const publishingError = (error: PressroomError): PublishingError => {
  switch (error._tag) {
    case "InvalidRequest":
      return published("invalid_request", error.status, error.message, false)
    case "Unauthorized":
      return published("unauthorized", 401, error.message, false)
    case "Forbidden":
      return published("forbidden", 403, error.message, false)
    case "NotFound":
      return published("not_found", 404, error.message, false)
    case "QuotaExhausted":
      return published("quota_exhausted", 402, error.message, false)
    case "RateLimited":
      return published("rate_limited", 429, error.message, true, { retryAfterSeconds: error.retryAfterSeconds })
    case "IdempotencyConflict":
      return published(
        "idempotency_conflict",
        409,
        error.message,
        error.inProgress,
        error.inProgress ? { currentState: "in_progress" } : undefined
      )
    case "ReservationConflict":
      return published("reservation_conflict", 409, error.message, true)
    case "InvalidStateTransition":
      return published("invalid_state_transition", 409, error.message, false, {
        currentState: error.currentState,
        expectedStates: error.expectedStates
      })
    case "ArtifactExpired":
      return published("artifact_expired", 410, error.message, false)
    case "ArtifactUnavailable":
      // Every 503 says when to retry (specification: Retry-After on 429 and 503).
      return published("artifact_unavailable", 503, error.message, true, { retryAfterSeconds: ARTIFACT_RETRY_AFTER_SECONDS })
    case "ServiceUnavailable":
      return published("service_unavailable", 503, error.message, true, { retryAfterSeconds: error.retryAfterSeconds })
    case "InternalError":
      return published("internal_error", 500, error.message, true)
    case "PublishedError":
      return error.error
  }
}

/** The response headers the error needs: `Retry-After` when it says when to retry, `Allow` on a 405. */
export const errorHeaders = (error: PressroomError): Record<string, string> => {
  if (error._tag === "PublishedError") return error.headers
  const { retryAfterSeconds } = publishingError(error).details ?? {}
  return {
    ...(retryAfterSeconds !== undefined ? { "retry-after": String(retryAfterSeconds) } : {}),
    ...(error._tag === "InvalidRequest" && error.allow ? { allow: error.allow.join(", ") } : {})
  }
}
