/**
 * What a Promise of the client rejects with. An answer carrying the specification's error object
 * (section 7: `code`, `httpStatus`, `retryable`, `details`) is a `PressroomError`, of the subclass
 * of its code; a request that got no answer is a `ConnectionError`; an answer the API definition
 * does not describe is a `ResponseError`. (A request the client cannot send as the API defines it,
 * such as a malformed id, is the caller's `TypeError`.)
 */
import type { ErrorCategory, ErrorCode, ErrorDetails, PublishingError } from "../shared/errors.ts"

export class PressroomError extends Error {
  readonly code: ErrorCode
  readonly category: ErrorCategory
  readonly httpStatus: number
  readonly retryable: boolean
  readonly details: ErrorDetails
  /** The request's correlation id, to quote to the operator. */
  readonly correlationId: string | undefined
  /** The error object as the server sent it. */
  readonly error: PublishingError

  constructor(error: PublishingError) {
    super(error.message)
    this.name = new.target.name
    this.code = error.code
    this.category = error.category
    this.httpStatus = error.httpStatus
    this.retryable = error.retryable
    this.details = error.details ?? {}
    this.correlationId = error.details?.correlationId
    this.error = error
  }
}

/** 400, 405, 408, 413, 415, 422 and 431: the request cannot be taken as sent. */
export class InvalidRequestError extends PressroomError {}
export class UnauthorizedError extends PressroomError {}
export class ForbiddenError extends PressroomError {}
export class NotFoundError extends PressroomError {}
export class QuotaExhaustedError extends PressroomError {}
export class RateLimitedError extends PressroomError {}
export class ServiceUnavailableError extends PressroomError {}
export class ArtifactExpiredError extends PressroomError {}
export class ArtifactUnavailableError extends PressroomError {}
/** A v1 conversion whose render failed answers with the job's error. */
export class RenderingFailedError extends PressroomError {}
export class JobCancelledError extends PressroomError {}
export class InternalServerError extends PressroomError {}
/** Every 409. */
export class ConflictError extends PressroomError {}
export class IdempotencyConflictError extends ConflictError {}
export class ReservationConflictError extends ConflictError {}
export class InvalidStateTransitionError extends ConflictError {}

const classOf: Readonly<Record<ErrorCode, new (error: PublishingError) => PressroomError>> = {
  invalid_request: InvalidRequestError,
  unauthorized: UnauthorizedError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  idempotency_conflict: IdempotencyConflictError,
  quota_exhausted: QuotaExhaustedError,
  rate_limited: RateLimitedError,
  service_unavailable: ServiceUnavailableError,
  artifact_expired: ArtifactExpiredError,
  reservation_conflict: ReservationConflictError,
  invalid_state_transition: InvalidStateTransitionError,
  rendering_failed: RenderingFailedError,
  artifact_unavailable: ArtifactUnavailableError,
  job_cancelled: JobCancelledError,
  internal_error: InternalServerError
}

/** The error of the subclass of `error.code`. */
export const pressroomErrorOf = (error: PublishingError): PressroomError => new classOf[error.code](error)

/** No answer: the connection was refused or reset, or the answer did not come in time (after every retry). */
export class ConnectionError extends Error {
  override readonly name = "ConnectionError"
}

/**
 * An answer that is neither a success nor the specification's error object, such as a proxy's
 * 502 page, a body the API definition does not describe, or /readyz's not-ready body (`body`).
 */
export class ResponseError extends Error {
  override readonly name = "ResponseError"
  constructor(
    message: string,
    readonly body?: unknown,
    options?: ErrorOptions
  ) {
    super(message, options)
  }
}
