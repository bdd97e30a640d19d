/**
 * The request body as the handlers read it (contract section 3): over 4 MiB is 413, said by
 * Content-Length or found while reading; a body that is not `application/json` is 415; malformed
 * JSON, or JSON nested deeper than `MAX_JSON_DEPTH`, is 400.
 *
 * Nothing reads a body before a handler asks for it, and `HttpApiBuilder` asks after the route's
 * authentication and its path: a request that fails authentication is answered 401 without its
 * body being read or waited for. The payload read is `Effect.orDie`'d by the framework, so a
 * refusal here travels as a defect carrying the `InvalidRequest` or `TransportRefusal`; the error envelope answers it as
 * the error it is (`bodyRefusal`).
 */
import type { HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Cause, Effect, Option, Stream } from "effect"
import type { IncomingMessage } from "node:http"
import { InvalidRequest } from "../shared/errors.ts"
import { MAX_BODY_BYTES, notJson, payloadTooLarge, TransportRefusal } from "./transport-refusal.ts"

export { MAX_BODY_BYTES }

/**
 * The deepest valid body nests three levels (a v1 conversion's `options`, a custom template's
 * `options`, a key's `scopes`: two; a v2 document's `spec.options`: three). 32 leaves room for
 * every body the API may take and stays far below the thousands of levels at which decoding and
 * formatting a schema error recurse past the stack.
 */
export const MAX_JSON_DEPTH = 32

const hasBody = (request: HttpServerRequest.HttpServerRequest) => {
  const length = request.headers["content-length"]
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")
}

const isJson = (contentType: string | undefined) =>
  contentType !== undefined && contentType.split(";")[0]!.trim().toLowerCase() === "application/json"

/** Whether `text` opens arrays and objects more than `limit` deep (brackets in strings are text): one pass, no recursion. */
export const nestedDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      // After a backslash the next character is escaped; a quote ends the string.
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/**
 * The body as text, at most `MAX_BODY_BYTES`. Past the limit the rest is let through unkept, and
 * the stream is not destroyed: that would close the connection before the 413 is written (the
 * platform's own limit does so). The envelope closes the connection after the answer instead.
 */
const readLimited = (source: IncomingMessage): Effect.Effect<string, InvalidRequest | TransportRefusal> =>
  Effect.async((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const stop = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
      source.off("close", onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk)
      stop()
      resume(Effect.fail(payloadTooLarge))
    }
    const onEnd = () => {
      stop()
      resume(Effect.succeed(Buffer.concat(chunks).toString("utf8")))
    }
    // An error, or a close before the end: the client went away (nobody will read the answer).
    const onError = () => {
      stop()
      resume(Effect.fail(InvalidRequest.malformed("the request body could not be read")))
    }
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
    source.on("close", onError)
    return Effect.sync(stop)
  })

const checkedText = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string, InvalidRequest | TransportRefusal> => {
  if (!hasBody(request)) return Effect.succeed("")
  if (Number(request.headers["content-length"] ?? 0) > MAX_BODY_BYTES) return Effect.fail(payloadTooLarge)
  if (!isJson(request.headers["content-type"])) return Effect.fail(notJson)
  return readLimited(NodeHttpServerRequest.toIncomingMessage(request))
}

const parse = (text: string): Effect.Effect<unknown, InvalidRequest> => {
  if (text === "") return Effect.succeed(null)
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
    return Effect.fail(InvalidRequest.malformed(`the request body is nested more than ${MAX_JSON_DEPTH} levels deep`))
  }
  return Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => InvalidRequest.malformed("the request body is not valid JSON") })
}

/**
 * `request` whose body is read through the checks above, once. The framework reads JSON bodies
 * as `json`; the readers of other content types (form, multipart, stream) refuse with 415, so no
 * body escapes the checks whatever its Content-Type says. Everything else is `request` itself.
 */
export const checkedBody = (request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest => {
  const text = Effect.runSync(Effect.cached(Effect.orDie(checkedText(request))))
  const refused = Effect.die(notJson)
  return Object.create(request, {
    text: { value: text },
    json: { value: Effect.flatMap(text, (body) => Effect.orDie(parse(body))) },
    arrayBuffer: { value: Effect.map(text, (body) => new TextEncoder().encode(body).buffer) },
    urlParamsBody: { value: refused },
    multipart: { value: refused },
    multipartStream: { value: Stream.die(notJson) },
    stream: { value: Stream.die(notJson) }
  }) as HttpServerRequest.HttpServerRequest
}

/** The refusal of a body check, when that is what `cause` is. */
export const bodyRefusal = (cause: Cause.Cause<unknown>): Option.Option<InvalidRequest | TransportRefusal> =>
  Option.filter(
    Cause.dieOption(cause),
    (defect): defect is InvalidRequest | TransportRefusal => defect instanceof InvalidRequest || defect instanceof TransportRefusal
  )
