/**
 * How errors are answered, for the endpoints' declarations: the two envelopes (v2 with
 * `contractVersion`; v1 and admin without), and `withErrors`, which declares the errors an endpoint
 * can fail with under the status each is answered with. The declarations give the OpenAPI document
 * and the handlers' error types; at run time src/http/error-envelope.ts writes the same envelope.
 */
import type { HttpApiEndpoint, HttpMethod } from "@effect/platform"
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import {
  type Answerable,
  type InvalidRequest,
  isPressroomError,
  type PressroomError,
  PublishedError,
  PublishingError,
  publishingError
} from "./errors.ts"

export const CONTRACT_VERSION = "publishing.lifecycle.v1"

/** The v2 error body. */
export const PublishingErrorEnvelope = Schema.Struct({
  contractVersion: Schema.Literal(CONTRACT_VERSION),
  error: PublishingError
}).annotations({ identifier: "PublishingErrorEnvelope" })

/** The v1 (and admin) error body: the same error without `contractVersion`. */
export const V1ErrorBody = Schema.Struct({ error: PublishingError }).annotations({ identifier: "V1ErrorBody" })

/** Which envelope an API answers errors in. */
export type Dialect = "v1" | "v2"

export const dialectOf = (path: string): Dialect => (path.startsWith("/api/v2") ? "v2" : "v1")

/** The correlation id of an encoded declaration; the error envelope writes the request's own. */
const NO_CORRELATION = "00000000-0000-4000-8000-000000000000"

/** The body an error is answered with in `dialect`, quoting the request's correlation id. */
export const errorBody = (error: Answerable | PublishedError, correlationId: string, dialect: Dialect) => {
  const published = publishingError(error)
  const body = { error: { ...published, details: { ...published.details, correlationId } } }
  return dialect === "v2" ? { contractVersion: CONTRACT_VERSION, ...body } : body
}

const descriptions: Readonly<Record<number, string>> = {
  400: "The request is malformed: not JSON, wrong shape, unknown property, or an invalid header, path or query value.",
  401: "The API key is missing, malformed, unknown, expired, revoked or of the other environment.",
  402: "The final publication entitlement is exhausted.",
  403: "The API key lacks the operation's scope.",
  404: "The resource does not exist or belongs to another owner.",
  405: "The method is not allowed on this path (see Allow).",
  408: "The request was not received in time.",
  409: "A conflict: idempotency key reuse, or a resource state.",
  410: "The artifact expired or was deleted.",
  413: "The request body is larger than 4 MiB.",
  415: "The request body is not application/json.",
  422: "The request is well formed but its content cannot be accepted.",
  431: "The request's headers are too large.",
  429: "Rate limited; see Retry-After and details.retryAfterSeconds.",
  500: "An unexpected error; retry with exponential backoff.",
  503: "A dependency is temporarily unavailable; see Retry-After."
}
export type ErrorStatus = keyof typeof descriptions

/**
 * The answer to the errors `status` covers, in `dialect`. Encoding writes the envelope; decoding
 * (a client reading an answer) gives the error in its published form. `A` is the errors the
 * endpoint declares under `status`: the handler's error type.
 */
export const errorResponse = <A extends PressroomError = PressroomError>(status: ErrorStatus, dialect: Dialect) =>
  Schema.transform(
    dialect === "v2" ? PublishingErrorEnvelope : V1ErrorBody,
    Schema.declare((u): u is A => isPressroomError(u) && publishingError(u).httpStatus === status),
    {
      strict: false,
      decode: (body) => new PublishedError({ error: body.error, headers: {} }),
      encode: (error: PressroomError) => errorBody(error, NO_CORRELATION, dialect)
    }
  ).annotations(HttpApiSchema.annotations({ status, description: descriptions[status] }))

/** An error class with the status it is annotated with (every one but `InvalidRequest`, whose status varies). */
type Declared = { readonly ast: Schema.Schema.AnyNoContext["ast"] } & (abstract new (...args: never) => PressroomError)

const annotatedStatus = (error: Declared): ErrorStatus => {
  const status = HttpApiSchema.getStatusErrorAST(error.ast)
  if (!(status in descriptions)) throw new Error(`${String(error)} has no error status`)
  return status as ErrorStatus
}

/**
 * The statuses of a request's refusal an endpoint can answer: `InvalidRequest`'s (400 for a
 * malformed request, 422 for content), and for an endpoint that reads a body the refusals of the
 * body reader (413, 415: src/http/request-body.ts).
 */
export type RefusalStatus = InvalidRequest["status"] | 413 | 415

/**
 * Declares the errors `endpoint` can fail with, each under its status, and the refusals it can
 * answer, plus 500, which any request can meet. The error envelope answers unknown paths and
 * methods itself.
 */
export const withErrors = <
  Name extends string,
  Method extends HttpMethod.HttpMethod,
  Path,
  UrlParams,
  Payload,
  Headers,
  Success,
  Error,
  R,
  RE,
  const D extends ReadonlyArray<Declared>
>(
  endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, Method, Path, UrlParams, Payload, Headers, Success, Error, R, RE>,
  dialect: Dialect,
  errors: D,
  refusals: ReadonlyArray<RefusalStatus> = []
) => {
  type Answered = InstanceType<D[number]> | InvalidRequest | PublishedError
  const [first = 500, ...rest] = [...new Set<ErrorStatus>([...refusals, ...errors.map(annotatedStatus), 500])].sort()
  // Each error response's type is every error answered with its status; the endpoint's errors are the declared ones.
  return rest.reduce(
    (declared, status) => declared.addError(errorResponse<Answered>(status, dialect)),
    endpoint.addError(errorResponse<Answered>(first, dialect))
  )
}
