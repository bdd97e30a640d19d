/**
 * What the transport refuses around a handler, never a domain error: 405 a method the path does
 * not take (`allow` lists those it does), 408 a request not received in time, 413 a body too
 * large, 415 a body that is not JSON, 431 headers too large. The error envelope, the body reader
 * (request-body.ts) and the answers to what Node's parser refuses (connections.ts) make them;
 * each is answered with the code `invalid_request`, as the specification asks.
 */
import { Schema } from "effect"
import { answered } from "../shared/errors.ts"

export class TransportRefusal extends Schema.TaggedError<TransportRefusal>()(
  "TransportRefusal",
  {
    status: Schema.Literal(405, 408, 413, 415, 431),
    message: Schema.String,
    allow: Schema.optional(Schema.Array(Schema.String))
  },
  answered(400, "invalid_request")
) {}

export const MAX_BODY_BYTES = 4 * 1024 * 1024

/** The body reader's refusals (request-body.ts), here so that the OpenAPI examples quote them without the reader's Node imports. */
export const payloadTooLarge = new TransportRefusal({ status: 413, message: `the request body is larger than ${MAX_BODY_BYTES} bytes` })
export const notJson = new TransportRefusal({ status: 415, message: "the request body must be application/json" })
