/**
 * The one place where failures become responses (contract section 3). Every request gets a fresh
 * correlation id, sent as `X-Correlation-Id` on every response and quoted in every error body.
 * Bodies are checked before routing: over 4 MiB is 413, a body that is not `application/json` is
 * 415, malformed JSON is 400. Afterwards a domain error (shared/errors.ts) is written in its API's
 * envelope, a schema failure is 400, an unknown path 404, a known path with the wrong method 405
 * with `Allow`, and anything else 500 with nothing of its cause (the cause goes to the log).
 */
import { HttpApiError, HttpIncomingMessage, type HttpApp, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Option, ParseResult } from "effect"
import { randomUUID } from "node:crypto"
import { Metrics } from "../ops/metrics.ts"
import { type Dialect, dialectOf, errorBody } from "../shared/error-responses.ts"
import {
  errorHeaders,
  InternalError,
  InvalidRequest,
  isPressroomError,
  NotFound,
  type PressroomError,
  publishingError
} from "../shared/errors.ts"
import type { RouteTable } from "./route-table.ts"

export const MAX_BODY_BYTES = 4 * 1024 * 1024

export const errorResponse = (error: PressroomError, correlationId: string, dialect: Dialect) =>
  HttpServerResponse.unsafeJson(errorBody(error, correlationId, dialect), {
    status: publishingError(error).httpStatus,
    headers: errorHeaders(error)
  })

const hasBody = (request: HttpServerRequest.HttpServerRequest) => {
  const length = request.headers["content-length"]
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")
}

const isJson = (contentType: string | undefined) =>
  contentType !== undefined && contentType.split(";")[0]!.trim().toLowerCase() === "application/json"

const payloadTooLarge = new InvalidRequest({ status: 413, message: `the request body is larger than ${MAX_BODY_BYTES} bytes` })

/** 413, 415 and malformed JSON, decided before any handler runs; the body read here is cached for the handler. */
const checkBody = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<void, InvalidRequest> => {
  if (!hasBody(request)) return Effect.void
  if (Number(request.headers["content-length"] ?? 0) > MAX_BODY_BYTES) return Effect.fail(payloadTooLarge)
  if (!isJson(request.headers["content-type"])) {
    return Effect.fail(new InvalidRequest({ status: 415, message: "the request body must be application/json" }))
  }
  return request.text.pipe(
    HttpIncomingMessage.withMaxBodySize(Option.some(MAX_BODY_BYTES)),
    Effect.mapError((error) =>
      String((error.cause as Error | undefined)?.message).includes("maxBytes")
        ? payloadTooLarge
        : InvalidRequest.malformed("the request body could not be read")
    ),
    Effect.flatMap((text) =>
      Effect.try({
        try: () => void (text === "" ? null : JSON.parse(text)),
        catch: () => InvalidRequest.malformed("the request body is not valid JSON")
      })
    )
  )
}

const describeDecodeError = (error: HttpApiError.HttpApiDecodeError): string => {
  const issue = error.issues[0]
  if (!issue) return "the request is invalid"
  const where = issue.path.length > 0 ? issue.path.join(".") : "request"
  return `${where}: ${issue.message}`.slice(0, 500)
}

const toPressroomError = (cause: Cause.Cause<unknown>, request: HttpServerRequest.HttpServerRequest, routes: RouteTable) =>
  Effect.gen(function* () {
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure)) {
      const error = failure.value
      if (isPressroomError(error)) return error
      if (error instanceof HttpApiError.HttpApiDecodeError) return InvalidRequest.malformed(describeDecodeError(error))
      if (ParseResult.isParseError(error)) return InvalidRequest.malformed(ParseResult.TreeFormatter.formatErrorSync(error).split("\n")[0]!)
      if (HttpServerError.isServerError(error) && error._tag === "RouteNotFound") {
        const allow = routes.methodsFor(new URL(request.url, "http://x").pathname)
        return allow.length > 0
          ? new InvalidRequest({ status: 405, message: "the method is not allowed on this resource", allow })
          : new NotFound({ resource: "route" })
      }
    }
    yield* Effect.logError("request failed", cause)
    return new InternalError()
  })

export const errorEnvelope = (routes: RouteTable) =>
  Effect.map(
    Metrics,
    (metrics) =>
      (app: HttpApp.Default): HttpApp.Default =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const correlationId = randomUUID()
          const pathname = new URL(request.url, "http://x").pathname
          // An unknown path is a 404 whatever its body.
          const precheck = routes.methodsFor(pathname).includes(request.method) ? checkBody(request) : Effect.void
          const response = yield* precheck.pipe(
            Effect.zipRight(app),
            Effect.catchAllCause((cause) =>
              Cause.isInterruptedOnly(cause)
                ? Effect.interrupt
                : Effect.map(toPressroomError(cause, request, routes), (error) => errorResponse(error, correlationId, dialectOf(pathname)))
            ),
            Effect.annotateLogs("correlationId", correlationId)
          )
          metrics.recordRequest(request.method, routes.routeOf(pathname), response.status)
          return HttpServerResponse.setHeader(response, "x-correlation-id", correlationId)
        })
  )
