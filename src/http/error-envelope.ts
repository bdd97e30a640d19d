/**
 * The one place where failures become responses (contract section 3). Every request gets a fresh
 * correlation id, sent as `X-Correlation-Id` on every response and quoted in every error body.
 * The handlers read the body through request-body.ts (413, 415, malformed or too deeply nested
 * JSON), after authentication. A domain error (shared/errors.ts) is written in its API's
 * envelope, a schema failure is 400, an unknown path 404, a known path with the wrong method 405
 * with `Allow`, a path parameter the router cannot take 400, a database that cannot be reached 503
 * with `Retry-After`, and anything else 500 with nothing of its cause (the cause goes to the log).
 */
import { HttpApiError, type HttpApp, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Cause, Effect, Option, ParseResult } from "effect"
import { randomUUID } from "node:crypto"
import { causeIsDatabaseUnreachable } from "../db/unreachable.ts"
import { Metrics } from "../ops/metrics.ts"
import { type Dialect, dialectOf, errorBody } from "../shared/error-responses.ts"
import {
  databaseUnavailable,
  errorHeaders,
  InternalError,
  InvalidRequest,
  isPressroomError,
  NotFound,
  type PressroomError,
  publishingError
} from "../shared/errors.ts"
import { COMMON_HEADERS, closeAfterEarlyAnswer } from "./connections.ts"
import { bodyRefusal, checkedBody } from "./request-body.ts"
import type { RouteTable } from "./route-table.ts"
import { TransportRefusal } from "./transport-refusal.ts"

export const errorResponse = (error: PressroomError | TransportRefusal, correlationId: string, dialect: Dialect) =>
  HttpServerResponse.unsafeJson(errorBody(error, correlationId, dialect), {
    status: publishingError(error).httpStatus,
    headers: errorHeaders(error)
  })

const describeDecodeError = (error: HttpApiError.HttpApiDecodeError): string => {
  const issue = error.issues[0]
  if (!issue) return "the request is invalid"
  const where = issue.path.length > 0 ? issue.path.join(".") : "request"
  return `${where}: ${issue.message}`.slice(0, 500)
}

const toPressroomError = (cause: Cause.Cause<unknown>, request: HttpServerRequest.HttpServerRequest, routes: RouteTable) =>
  Effect.gen(function* () {
    const refusal = bodyRefusal(cause)
    if (Option.isSome(refusal)) return refusal.value
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure)) {
      const error = failure.value
      if (isPressroomError(error)) return error
      if (error instanceof HttpApiError.HttpApiDecodeError) return InvalidRequest.malformed(describeDecodeError(error))
      if (ParseResult.isParseError(error)) return InvalidRequest.malformed(ParseResult.TreeFormatter.formatErrorSync(error).split("\n")[0]!)
      if (HttpServerError.isServerError(error) && error._tag === "RouteNotFound") {
        const pathname = new URL(request.url, "http://x").pathname
        const refused = routes.refusedParameter(request.method, pathname)
        if (refused) return new InvalidRequest({ status: 400, ...refused })
        const allow = routes.methodsFor(pathname)
        return allow.length > 0
          ? new TransportRefusal({ status: 405, message: "the method is not allowed on this resource", allow })
          : new NotFound({ resource: "route" })
      }
    }
    if (causeIsDatabaseUnreachable(cause)) {
      yield* Effect.logWarning("request failed: the database is unreachable", cause)
      return databaseUnavailable()
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
          const response = yield* app.pipe(
            Effect.provideService(HttpServerRequest.HttpServerRequest, checkedBody(request)),
            Effect.catchAllCause((cause) =>
              Cause.isInterruptedOnly(cause)
                ? Effect.interrupt
                : Effect.map(toPressroomError(cause, request, routes), (error) => errorResponse(error, correlationId, dialectOf(pathname)))
            ),
            Effect.annotateLogs("correlationId", correlationId)
          )
          metrics.recordRequest(request.method, routes.routeOf(pathname), response.status)
          yield* Effect.sync(() => closeAfterEarlyAnswer(NodeHttpServerRequest.toIncomingMessage(request)))
          return HttpServerResponse.setHeaders(response, { "x-correlation-id": correlationId, ...COMMON_HEADERS })
        })
  )
