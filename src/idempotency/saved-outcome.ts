/**
 * What an idempotency record keeps of a finished request, and how a replay gives it back.
 *
 * A response is kept as status, headers and body text. An error is kept in its published form
 * (`PublishingError`, without the correlation id) with the headers it was answered with: the body
 * that was sent quotes the request's correlation id, and the contract wants `details.correlationId`
 * to equal the `X-Correlation-Id` of the response it is in. A replayed error therefore fails the new
 * request with a `PublishedError`, which the error envelope writes with the new request's
 * correlation id; everything else in it is as saved. Records written before errors were saved in
 * this form (an `ApiError` with its fields) decode the same way.
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import {
  categoryOf,
  ErrorCode,
  ErrorDetails,
  errorHeaders,
  type PressroomError,
  PublishedError,
  publishingError
} from "../shared/errors.ts"

export interface ResponseSealing {
  readonly seal: (body: string) => string
  readonly open: (sealed: string) => string
}

/**
 * How an outcome of type `A` is kept in a record and given back by a replay: an HTTP response
 * (`httpOutcome`), or a value such as an MCP tool's result (`jsonOutcome`).
 */
export interface OutcomeCodec<A> {
  readonly save: (outcome: A) => Effect.Effect<SavedResponse>
  readonly replay: (saved: SavedResponse) => A
  /** The error of a replay (a REST replay marks its headers). */
  readonly replayError: (saved: SavedError) => PublishedError
  /** Seals what is saved (a body holding a secret), and opens it for a replay. */
  readonly sealing?: ResponseSealing
}

export const REPLAYED_HEADER = "idempotency-replayed"

export interface SavedResponse {
  readonly status: number
  /** The handler's headers (`location`, …) and the body's `content-type`. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | null
}

/** An error as a record keeps it. */
export const SavedError = Schema.Struct({
  code: ErrorCode,
  httpStatus: Schema.Int,
  message: Schema.String,
  retryable: Schema.Boolean,
  details: Schema.optional(ErrorDetails),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
})
export type SavedError = typeof SavedError.Type

export type SavedOutcome =
  | { readonly _tag: "response"; readonly response: SavedResponse }
  | { readonly _tag: "error"; readonly error: SavedError }

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

export const captureError = (error: PressroomError): SavedError => {
  const { category: _, ...published } = publishingError(error)
  return { ...published, headers: errorHeaders(error) }
}

export const replayResponse = (saved: SavedResponse): HttpServerResponse.HttpServerResponse => {
  const { "content-type": contentType, ...headers } = saved.headers
  const options = { status: saved.status, headers: { ...headers, [REPLAYED_HEADER]: "true" } }
  return saved.body === null
    ? HttpServerResponse.empty(options)
    : HttpServerResponse.text(saved.body, { ...options, contentType: contentType ?? "application/json" })
}

export const replayError = ({ headers, ...error }: SavedError): PublishedError =>
  new PublishedError({
    error: { ...error, category: categoryOf[error.code] },
    headers: { ...headers, [REPLAYED_HEADER]: "true" }
  })

/** A REST mutation's outcome: its response, replayed with `Idempotency-Replayed: true`. */
export const httpOutcome = (sealing?: ResponseSealing): OutcomeCodec<HttpServerResponse.HttpServerResponse> => ({
  save: captureResponse,
  replay: replayResponse,
  replayError,
  ...(sealing ? { sealing } : {})
})

/** A value that is JSON (an MCP tool's result), kept as its text; a replay gives back an equal value. */
export const jsonOutcome = <A>(): OutcomeCodec<A> => ({
  save: (value) => Effect.succeed({ status: 200, headers: {}, body: JSON.stringify(value) }),
  replay: (saved) => JSON.parse(saved.body ?? "null") as A,
  replayError: ({ headers: _, ...error }) => new PublishedError({ error: { ...error, category: categoryOf[error.code] }, headers: {} })
})

/** The error's JSON for the record (`SavedError` decodes it back from the record's row). */
export const encodeError = Schema.encodeSync(SavedError)
