/**
 * The errors a client may see (specification section 7, contract section 3): one tagged error per
 * code, failed with by domain code. Each class declares once, in its annotations (`answered`), the
 * HTTP status it is answered with and its code, whose category is `categoryOf`'s; what varies with
 * the instance (`retryable`, `details`) is a getter of the class. `publishingError` reads them into
 * the specification's `PublishingError`; src/http/error-envelope.ts writes it in the envelope of
 * the request's API. Nothing here knows about requests or responses, and the refusals of the
 * transport (405, 408, 413, 415, 431) are src/http/'s (transport-refusal.ts).
 *
 * Two codes are never failed with: `rendering_failed` and `job_cancelled` end a job and are carried
 * in `job.error` (jobs/job-errors.ts). A response that passes on an error already in its published
 * form (a failed job's, or one an idempotency record replays) fails with `PublishedError`.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Option, Schema, SchemaAST } from "effect"

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

const ErrorCodeId = Symbol.for("pressroom/ErrorCode")

/** The annotations of an error class: the HTTP status it is answered with, and its code. */
export const answered = <A>(status: number, code: ErrorCode): Schema.Annotations.Schema<A> => ({
  ...HttpApiSchema.annotations<A>({ status }),
  [ErrorCodeId]: code
})

/**
 * What `publishingError` reads of an error besides its class's annotations: its message, a status
 * of its own when it has several (`InvalidRequest`, the transport's refusals), whether a retry may
 * succeed (false unless it says), and its details.
 */
export interface Answerable {
  readonly _tag: string
  readonly message: string
  readonly status?: number
  readonly retryable?: boolean
  readonly details?: ErrorDetails
  /** The methods a path takes, for the `Allow` header of a 405. */
  readonly allow?: ReadonlyArray<string>
}

/**
 * The request cannot be taken as sent: 400 malformed (shape, header, path, body) or 422 well
 * formed but its content cannot be accepted (`field` names what).
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()(
  "InvalidRequest",
  {
    status: Schema.Literal(400, 422),
    message: Schema.String,
    field: Schema.optional(Schema.String)
  },
  answered(422, "invalid_request")
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
  answered(401, "unauthorized")
) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  {
    /** The scopes of which the key lacks every one. */
    scopes: Schema.Array(Schema.String),
    /** Why, when the refusal is not about a key's scopes (a download link that does not hold). */
    reason: Schema.optional(Schema.String)
  },
  answered(403, "forbidden")
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
  answered(404, "not_found")
) {
  override get message() {
    return `${this.resource} not found`
  }
}

export class QuotaExhausted extends Schema.TaggedError<QuotaExhausted>()("QuotaExhausted", {}, answered(402, "quota_exhausted")) {
  override get message() {
    return "the final publication entitlement is exhausted"
  }
}

export class RateLimited extends Schema.TaggedError<RateLimited>()(
  "RateLimited",
  {
    retryAfterSeconds: Schema.Int
  },
  answered(429, "rate_limited")
) {
  override get message() {
    return "too many requests; retry later"
  }
  get retryable() {
    return true
  }
  get details(): ErrorDetails {
    return { retryAfterSeconds: this.retryAfterSeconds }
  }
}

/** The Idempotency-Key is taken by another request, or by this one while it still runs (`inProgress`). */
export class IdempotencyConflict extends Schema.TaggedError<IdempotencyConflict>()(
  "IdempotencyConflict",
  {
    message: Schema.String,
    inProgress: Schema.Boolean
  },
  answered(409, "idempotency_conflict")
) {
  get retryable() {
    return this.inProgress
  }
  get details(): ErrorDetails | undefined {
    return this.inProgress ? { currentState: "in_progress" } : undefined
  }
}

export class InvalidStateTransition extends Schema.TaggedError<InvalidStateTransition>()(
  "InvalidStateTransition",
  {
    currentState: Schema.String,
    expectedStates: Schema.Array(Schema.String)
  },
  answered(409, "invalid_state_transition")
) {
  override get message() {
    return `the resource is ${this.currentState}`
  }
  get details(): ErrorDetails {
    return { currentState: this.currentState, expectedStates: this.expectedStates }
  }
}

export class ArtifactExpired extends Schema.TaggedError<ArtifactExpired>()("ArtifactExpired", {}, answered(410, "artifact_expired")) {
  override get message() {
    return "the artifact expired or was deleted"
  }
}

/** How soon a download whose bytes were unreadable may be tried again. */
const ARTIFACT_RETRY_AFTER_SECONDS = 5

/** Stored bytes are temporarily unreadable. */
export class ArtifactUnavailable extends Schema.TaggedError<ArtifactUnavailable>()(
  "ArtifactUnavailable",
  {},
  answered(503, "artifact_unavailable")
) {
  override get message() {
    return "the artifact is temporarily unreadable; retry"
  }
  get retryable() {
    return true
  }
  /** Every 503 says when to retry (specification: Retry-After on 429 and 503). */
  get details(): ErrorDetails {
    return { retryAfterSeconds: ARTIFACT_RETRY_AFTER_SECONDS }
  }
}

/** A dependency (queue, renderer, storage) is temporarily unavailable. */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  {
    message: Schema.String,
    retryAfterSeconds: Schema.Int
  },
  answered(503, "service_unavailable")
) {
  get retryable() {
    return true
  }
  get details(): ErrorDetails {
    return { retryAfterSeconds: this.retryAfterSeconds }
  }
}

/**
 * The answer when the database could not be reached (db/unreachable.ts), whether a REST request or
 * an MCP tool call met it: retry soon, the pool reconnects on its next use.
 */
export const databaseUnavailable = (): ServiceUnavailable =>
  new ServiceUnavailable({ message: "the database is unavailable; retry", retryAfterSeconds: 2 })

export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", {}, answered(500, "internal_error")) {
  override get message() {
    return "an unexpected error occurred; retry later"
  }
  get retryable() {
    return true
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

/** Every error a handler may fail with. */
const ERRORS = [
  InvalidRequest,
  Unauthorized,
  Forbidden,
  NotFound,
  QuotaExhausted,
  RateLimited,
  IdempotencyConflict,
  InvalidStateTransition,
  ArtifactExpired,
  ArtifactUnavailable,
  ServiceUnavailable,
  InternalError,
  PublishedError
] as const
export type PressroomError = InstanceType<(typeof ERRORS)[number]>

const ERROR_TAGS: ReadonlySet<string> = new Set(ERRORS.map((error) => error.identifier))

export const isPressroomError = (u: unknown): u is PressroomError =>
  typeof u === "object" && u !== null && ERROR_TAGS.has((u as { _tag?: string })._tag ?? "")

/** The status and code an error's class declares (`answered`). */
const declaration = (error: Answerable): { readonly status: number; readonly code: ErrorCode } => {
  const schema = error.constructor
  if (!Schema.isSchema(schema)) throw new Error(`${error._tag} is not an error class`)
  // A class's annotations are on the type side of its transformation, as HttpApiSchema reads its status.
  const ast = SchemaAST.isTransformation(schema.ast) ? schema.ast.to : schema.ast
  const code = SchemaAST.getAnnotation<ErrorCode>(ast, ErrorCodeId)
  if (Option.isNone(code)) throw new Error(`${error._tag} declares no code`)
  return { status: HttpApiSchema.getStatusErrorAST(schema.ast), code: code.value }
}

/** The error as the specification publishes it (without the request's correlation id). */
export const publishingError = (error: Answerable | PublishedError): PublishingError => {
  if (error instanceof PublishedError) return error.error
  const { code, status } = declaration(error)
  return {
    category: categoryOf[code],
    code,
    httpStatus: error.status ?? status,
    message: error.message,
    retryable: error.retryable ?? false,
    ...(error.details ? { details: error.details } : {})
  }
}

/** The response headers the error needs: `Retry-After` when it says when to retry, `Allow` on a 405. */
export const errorHeaders = (error: Answerable | PublishedError): Record<string, string> => {
  if (error instanceof PublishedError) return error.headers
  const { retryAfterSeconds } = error.details ?? {}
  return {
    ...(retryAfterSeconds !== undefined ? { "retry-after": String(retryAfterSeconds) } : {}),
    ...(error.allow ? { allow: error.allow.join(", ") } : {})
  }
}
