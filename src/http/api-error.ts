/**
 * The specification's error model (section 7, contract section 3): one error type for every
 * failure a client may see, and the envelope it is written in. Domain code fails with `ApiError`;
 * `error-envelope.ts` turns it (and every other failure) into a response in one place.
 */
import { Schema } from "effect"

export const CONTRACT_VERSION = "publishing.lifecycle.v1"

export const ErrorCategory = Schema.Literal(
  "input", "authentication", "authorization", "entitlement", "conflict", "render", "storage", "delivery", "internal"
)
export type ErrorCategory = typeof ErrorCategory.Type

export const ErrorCode = Schema.Literal(
  "invalid_request", "unauthorized", "forbidden", "not_found", "idempotency_conflict", "quota_exhausted",
  "rate_limited", "service_unavailable", "artifact_expired", "reservation_conflict", "invalid_state_transition",
  "rendering_failed", "artifact_unavailable", "job_cancelled", "internal_error"
)
export type ErrorCode = typeof ErrorCode.Type

const categoryOf: Record<ErrorCode, ErrorCategory> = {
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

/** PublishingError (specification section 7). */
export const PublishingError = Schema.Struct({
  category: ErrorCategory,
  code: ErrorCode,
  httpStatus: Schema.Int,
  message: Schema.String,
  retryable: Schema.Boolean,
  details: Schema.optional(ErrorDetails)
}).annotations({ identifier: "PublishingError" })
export type PublishingError = typeof PublishingError.Type

/** The v2 error body. */
export const PublishingErrorEnvelope = Schema.Struct({
  contractVersion: Schema.Literal(CONTRACT_VERSION),
  error: PublishingError
}).annotations({ identifier: "PublishingErrorEnvelope" })

/** The v1 (and admin) error body: the same error without `contractVersion`. */
export const V1ErrorBody = Schema.Struct({ error: PublishingError }).annotations({ identifier: "V1ErrorBody" })

export class ApiError extends Schema.TaggedError<ApiError>()("ApiError", {
  code: ErrorCode,
  httpStatus: Schema.Int,
  message: Schema.String,
  retryable: Schema.Boolean,
  details: Schema.optional(ErrorDetails),
  /** Response headers the error needs (`Retry-After`, `Allow`). */
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
}) {
  get category(): ErrorCategory {
    return categoryOf[this.code]
  }

  toPublishingError(correlationId: string): PublishingError {
    return { ...this.toJobError(), details: { ...this.details, correlationId } }
  }

  /** The error as a job carries it (`job.error`): no request, so no correlation id. */
  toJobError(): PublishingError {
    return {
      category: this.category,
      code: this.code,
      httpStatus: this.httpStatus,
      message: this.message,
      retryable: this.retryable,
      ...(this.details ? { details: this.details } : {})
    }
  }
}

const make = (code: ErrorCode, httpStatus: number, message: string, extra: Partial<Pick<ApiError, "retryable" | "details" | "headers">> = {}) =>
  new ApiError({ code, httpStatus, message, retryable: extra.retryable ?? false, details: extra.details, headers: extra.headers })

/** 400: the request's shape is wrong (contract section 3). */
export const invalidRequest = (message: string) => make("invalid_request", 400, message)
/** 422: the request is well formed but its content cannot be accepted. */
export const unprocessable = (message: string) => make("invalid_request", 422, message)
export const unsupportedMediaType = () => make("invalid_request", 415, "the request body must be application/json")
export const payloadTooLarge = (limitBytes: number) => make("invalid_request", 413, `the request body is larger than ${limitBytes} bytes`)
export const unauthorized = (message = "a valid API key is required") => make("unauthorized", 401, message)
export const forbidden = (scope: string) => make("forbidden", 403, `the API key lacks the scope ${scope}`)
export const notFound = (what = "resource") => make("not_found", 404, `${what} not found`)
export const methodNotAllowed = (allow: ReadonlyArray<string>) =>
  make("invalid_request", 405, "the method is not allowed on this resource", { headers: { allow: allow.join(", ") } })
export const quotaExhausted = () => make("quota_exhausted", 402, "the final publication entitlement is exhausted")
export const rateLimited = (retryAfterSeconds: number) =>
  make("rate_limited", 429, "too many requests; retry later", {
    retryable: true,
    details: { retryAfterSeconds },
    headers: { "retry-after": String(retryAfterSeconds) }
  })
export const serviceUnavailable = (message: string, retryAfterSeconds = 5) =>
  make("service_unavailable", 503, message, {
    retryable: true,
    details: { retryAfterSeconds },
    headers: { "retry-after": String(retryAfterSeconds) }
  })
export const idempotencyConflict = (message: string, inProgress = false) =>
  make("idempotency_conflict", 409, message, inProgress ? { retryable: true, details: { currentState: "in_progress" } } : {})
export const reservationConflict = () => make("reservation_conflict", 409, "a unit reservation lost a race; retry", { retryable: true })
export const invalidStateTransition = (currentState: string, expectedStates: ReadonlyArray<string>) =>
  make("invalid_state_transition", 409, `the resource is ${currentState}`, { details: { currentState, expectedStates } })
export const renderingFailed = (message: string) => make("rendering_failed", 422, message)
export const jobCancelled = () => make("job_cancelled", 409, "the job was cancelled")
export const internalError = () => make("internal_error", 500, "an unexpected error occurred; retry later", { retryable: true })
