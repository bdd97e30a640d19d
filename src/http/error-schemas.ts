/**
 * The error responses an endpoint declares, for the OpenAPI document: the envelope of its
 * dialect (v2 with `contractVersion`, v1 and admin without) under each status it can answer.
 * At run time the same `ApiError` is written by `error-envelope.ts`; these schemas encode it the
 * same way, so the document describes exactly what is sent.
 */
import { HttpApiEndpoint, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { ApiError, CONTRACT_VERSION, PublishingErrorEnvelope, V1ErrorBody } from "./api-error.ts"

export type Dialect = "v1" | "v2"

const descriptions: Record<number, string> = {
  400: "The request is malformed: not JSON, wrong shape, unknown property, or an invalid header, path or query value.",
  401: "The API key is missing, malformed, unknown, expired, revoked or of the other environment.",
  402: "The final publication entitlement is exhausted.",
  403: "The API key lacks the operation's scope.",
  404: "The resource does not exist or belongs to another owner.",
  405: "The method is not allowed on this path (see Allow).",
  409: "A conflict: idempotency key reuse, a resource state, or a lost reservation race.",
  410: "The artifact expired or was deleted.",
  413: "The request body is larger than 4 MiB.",
  415: "The request body is not application/json.",
  422: "The request is well formed but its content cannot be accepted.",
  429: "Rate limited; see Retry-After and details.retryAfterSeconds.",
  500: "An unexpected error; retry with exponential backoff.",
  503: "A dependency is temporarily unavailable; see Retry-After."
}

/** The error response `status` in `dialect`, for an endpoint's or a middleware's declaration. */
export const errorSchema = (status: number, dialect: Dialect) =>
  Schema.transform(
    dialect === "v2" ? PublishingErrorEnvelope : V1ErrorBody,
    Schema.declare((u): u is ApiError => u instanceof ApiError && u.httpStatus === status),
    {
      strict: false,
      decode: (body) => new ApiError({ ...body.error }),
      encode: (error) => {
        const body = { error: error.toPublishingError(error.details?.correlationId ?? "00000000-0000-4000-8000-000000000000") }
        return dialect === "v2" ? { contractVersion: CONTRACT_VERSION, ...body } : body
      }
    }
  ).annotations(HttpApiSchema.annotations({ status, description: descriptions[status] }))

/** Declares `statuses` as the endpoint's error responses in `dialect`. */
export const withErrors = <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(
  endpoint: E,
  dialect: Dialect,
  statuses: ReadonlyArray<keyof typeof descriptions>
): HttpApiEndpoint.HttpApiEndpoint.AddError<E, ApiError, never> =>
  statuses.reduce<any>((acc, status) => acc.addError(errorSchema(status, dialect)), endpoint)
