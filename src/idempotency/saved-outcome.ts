/**
 * What an idempotency record keeps of a finished request, and how a replay gives it back.
 *
 * A response is kept as status, headers and body text. An error is kept as the `ApiError`'s fields
 * rather than as the body that was sent: the body quotes the request's correlation id, and the
 * contract wants `details.correlationId` to equal the `X-Correlation-Id` of the response it is in.
 * A replayed error therefore fails the new request with the same `ApiError`, which the error
 * envelope writes with the new request's correlation id; everything else in it is as saved.
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { ApiError } from "../http/api-error.ts"

export const REPLAYED_HEADER = "idempotency-replayed"

export interface SavedResponse {
  readonly status: number
  /** The handler's headers (`location`, …) and the body's `content-type`. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | null
}

export type SavedOutcome =
  | { readonly _tag: "response"; readonly response: SavedResponse }
  | { readonly _tag: "error"; readonly error: ApiError }

const decoder = new TextDecoder()

/** The response as it will be saved; idempotent operations answer with buffered bodies (JSON), never streams. */
export const captureResponse = (response: HttpServerResponse.HttpServerResponse): Effect.Effect<SavedResponse> => {
  const headers: Record<string, string> = { ...response.headers }
  switch (response.body._tag) {
    case "Empty":
      return Effect.succeed({ status: response.status, headers, body: null })
    case "Uint8Array":
      return Effect.succeed({
        status: response.status,
        headers: { ...headers, "content-type": response.body.contentType },
        body: decoder.decode(response.body.body)
      })
    default:
      return Effect.dieMessage(`an idempotent operation answered with a ${response.body._tag} body, which cannot be saved`)
  }
}

export const replayResponse = (saved: SavedResponse): HttpServerResponse.HttpServerResponse => {
  const { "content-type": contentType, ...headers } = saved.headers
  const options = { status: saved.status, headers: { ...headers, [REPLAYED_HEADER]: "true" } }
  return saved.body === null
    ? HttpServerResponse.empty(options)
    : HttpServerResponse.text(saved.body, { ...options, contentType: contentType ?? "application/json" })
}

/** The error's fields as JSON for the record, and back. */
export const encodeError = Schema.encodeSync(ApiError)
export const decodeError = Schema.decodeUnknownSync(ApiError)

export const replayError = ({ code, details, headers, httpStatus, message, retryable }: ApiError): ApiError =>
  new ApiError({ code, httpStatus, message, retryable, details, headers: { ...headers, [REPLAYED_HEADER]: "true" } })
