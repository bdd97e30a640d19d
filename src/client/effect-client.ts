/**
 * The client for Effect users, derived from the API definition the server validates with
 * (`PressroomApi`, src/http/api.ts): `HttpApiClient.make` gives one method per endpoint, group by
 * group (`client.documents.create`, `client.jobs.get`, …), with the endpoint's own request and
 * response schemas. This module adds what every call needs, once for all of them: the bearer
 * credential (the admin token on /admin/), an Idempotency-Key when the endpoint takes one and the
 * caller gave none, a timeout per try, and the retries of retry.ts with that same key.
 *
 * An error answer fails with the server's `PublishedError`, carrying the specification's error
 * object (`error`) and the answer's headers; no answer fails with the HttpClient's `RequestError`
 * or a `TimeoutException`; a request that cannot be encoded, with `InvalidArgument`.
 */
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Headers from "@effect/platform/Headers"
import { type Cause, Data, type Duration, Effect, FiberRef, Option, ParseResult, Schema, SchemaAST } from "effect"
import type { Simplify } from "effect/Types"
import { PressroomApi } from "../http/api.ts"
import { PublishingErrorEnvelope, V1ErrorBody } from "../shared/error-responses.ts"
import { type PressroomError as ServerError, PublishedError } from "../shared/errors.ts"
import { type RetryOptions, retrySchedule } from "./retry.ts"

export interface ClientOptions {
  /** Where the server answers, e.g. `https://pressroom.example.com`. */
  readonly baseUrl: string | URL
  /** The API key (`pk_live_…`), sent as `Authorization: Bearer` to /api/. */
  readonly apiKey?: string
  /** The operator's admin token, sent to /admin/ instead of the API key. */
  readonly adminToken?: string
  /** Retries of a failed call; `false` for none. */
  readonly retry?: RetryOptions | false
  /** How long one try may take before it counts as no answer (default 60 s). */
  readonly timeout?: Duration.DurationInput
}

/** Why a call failed without the server's error object. */
export type ClientFailure = InvalidArgument | HttpClientError.HttpClientError | ParseResult.ParseError | Cause.TimeoutException

type ApiGroups = typeof PressroomApi extends { readonly groups: Readonly<Record<string, infer G>> } ? G : never

/** A request whose Idempotency-Key the client fills in when the caller leaves it out. */
type KeyOptional<R> = R extends { readonly headers: infer H }
  ? "idempotency-key" extends keyof H
    ? Simplify<Omit<R, "headers"> & { readonly headers: Simplify<Omit<H, "idempotency-key"> & { readonly "idempotency-key"?: string }> }>
    : R
  : R

/** The parts of a request that every property of may be left out, or that may be null: the client fills them in (`emptyParts`). */
type Leavable<R> = {
  [K in keyof R]: K extends "headers" | "payload" | "urlParams"
    ? Record<never, never> extends R[K]
      ? K
      : null extends R[K]
        ? K
        : never
    : never
}[keyof R]

/** A request with its leavable parts optional, as the caller writes it. */
type CallerRequest<R> = R extends object ? Simplify<Omit<R, Leavable<R> | "withResponse"> & { readonly [K in Leavable<R>]?: R[K] }> : R

/** One endpoint as a method: its request, its success, and the errors it can really fail with. */
export type Method<Endpoint> =
  Endpoint extends HttpApiEndpoint.HttpApiEndpoint<
    infer _Name,
    infer _Method,
    infer Path,
    infer UrlParams,
    infer Payload,
    infer Headers,
    infer Success,
    infer Error,
    infer _R,
    infer _RE
  >
    ? (
        request: CallerRequest<KeyOptional<HttpApiEndpoint.HttpApiEndpoint.ClientRequest<Path, UrlParams, Payload, Headers, false>>>
      ) => Effect.Effect<Success, Exclude<Error, ServerError> | PublishedError | ClientFailure>
    : never

/** Every group of the API, each with a method per endpoint. */
export type EffectClient = {
  readonly [Group in ApiGroups as HttpApiGroup.HttpApiGroup.Name<Group>]: {
    readonly [Endpoint in HttpApiGroup.HttpApiGroup.Endpoints<Group> as HttpApiEndpoint.HttpApiEndpoint.Name<Endpoint>]: Method<Endpoint>
  }
}

/**
 * What one try has seen: whether its request was sent, and the answer's headers. The HttpClient
 * writes it; a fiber the try runs in (the timeout races it in one) shares the same object.
 */
interface Try {
  sent: boolean
  headers: Headers.Headers
}
const currentTry = FiberRef.unsafeMake<Try | undefined>(undefined)

/** A request the API definition refuses before sending it, such as a malformed id: nothing reached the server. */
export class InvalidArgument extends Data.TaggedError("InvalidArgument")<{
  readonly message: string
  readonly cause: ParseResult.ParseError
}> {}

const ErrorBody = Schema.Union(PublishingErrorEnvelope, V1ErrorBody)

/**
 * An error answer, with its headers: the one the endpoint declares, as decoded; or the
 * specification's error object under a status the endpoint does not declare (a 503 from a
 * dependency), read from the response the client refused. A request that could not be encoded
 * is the caller's `InvalidArgument`.
 */
const withAnswer = <E>(error: E, attempt: Try): Effect.Effect<never, E | PublishedError | InvalidArgument> => {
  if (error instanceof PublishedError) return Effect.fail(new PublishedError({ error: error.error, headers: attempt.headers }))
  if (ParseResult.isParseError(error) && !attempt.sent) return Effect.fail(new InvalidArgument({ message: error.message, cause: error }))
  if (!(error instanceof HttpClientError.ResponseError)) return Effect.fail(error)
  const { response } = error
  return HttpClientResponse.schemaBodyJson(ErrorBody)(response).pipe(
    Effect.matchEffect({
      onFailure: () => Effect.fail(error),
      onSuccess: (body) => Effect.fail(new PublishedError({ error: body.error, headers: response.headers }))
    })
  )
}

const takesIdempotencyKey = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): boolean =>
  Option.exists(endpoint.headersSchema, (schema) =>
    SchemaAST.getPropertySignatures(schema.ast).some((property) => property.name === "idempotency-key")
  )

/**
 * What the client sends for a part of the request the caller left out: `{}` when the endpoint's
 * schema takes it (every header optional, no body or `{}`), else null when it takes that.
 */
const emptyParts = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): Record<string, unknown> => {
  const parts: Record<string, unknown> = {}
  const schemas = { headers: endpoint.headersSchema, payload: endpoint.payloadSchema, urlParams: endpoint.urlParamsSchema }
  for (const [part, schema] of Object.entries(schemas)) {
    if (Option.isNone(schema)) continue
    const empty = [{}, null].find((value) => Schema.is(schema.value as Schema.Schema<unknown>)(value))
    if (empty !== undefined) parts[part] = empty
  }
  return parts
}

/** The request with what its caller left out filled in (`emptyParts`). */
const filled = (request: unknown, empty: Record<string, unknown>): unknown => {
  const given = (request ?? {}) as Record<string, unknown>
  const missing = Object.entries(empty).filter(([part]) => given[part] === undefined)
  return missing.length === 0 ? request : { ...given, ...Object.fromEntries(missing) }
}

type AnyMethod = (request: unknown) => Effect.Effect<unknown, unknown>

/** The client, on the `HttpClient` in context (FetchHttpClient in a browser, Deno or Node 20). */
export const makeEffectClient = (options: ClientOptions): Effect.Effect<EffectClient, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const credentialFor = (url: string) =>
      new URL(url, "http://pressroom").pathname.startsWith("/admin/") ? options.adminToken : options.apiKey
    const raw = yield* HttpApiClient.make(PressroomApi, {
      baseUrl: options.baseUrl,
      transformClient: (client) =>
        client.pipe(
          HttpClient.mapRequest((request) => {
            const credential = credentialFor(request.url)
            return credential === undefined ? request : HttpClientRequest.bearerToken(request, credential)
          }),
          HttpClient.tapRequest(() =>
            Effect.map(FiberRef.get(currentTry), (attempt) => {
              if (attempt) attempt.sent = true
            })
          ),
          HttpClient.tap((response) =>
            Effect.map(FiberRef.get(currentTry), (attempt) => {
              if (attempt) attempt.headers = response.headers
            })
          )
        )
    })
    const timeout = options.timeout ?? "60 seconds"
    const retry = options.retry === false ? { maxAttempts: 1 } : (options.retry ?? {})
    const client: Record<string, Record<string, AnyMethod>> = {}
    for (const group of Object.values(PressroomApi.groups)) {
      const methods: Record<string, AnyMethod> = {}
      for (const endpoint of Object.values(group.endpoints)) {
        const call = (raw as unknown as Record<string, Record<string, AnyMethod>>)[group.identifier]![endpoint.name]!
        const keyed = takesIdempotencyKey(endpoint)
        const empty = emptyParts(endpoint)
        const resendable = keyed || endpoint.method === "GET" || endpoint.method === "HEAD"
        methods[endpoint.name] = (request) => {
          const complete = filled(request, empty)
          const sent = keyed ? withIdempotencyKey(complete) : complete
          const oneTry = Effect.suspend(() => {
            const attempt: Try = { sent: false, headers: Headers.empty }
            return call(sent).pipe(
              Effect.catchAll((error) => withAnswer(error, attempt)),
              Effect.timeout(timeout),
              Effect.locally(currentTry, attempt)
            )
          })
          return Effect.retry(oneTry, retrySchedule(retry, resendable))
        }
      }
      client[group.identifier] = methods
    }
    return client as unknown as EffectClient
  })

/** The request with the caller's Idempotency-Key, or a new one that every retry of the call reuses. */
const withIdempotencyKey = (request: unknown) => {
  const given = request as { readonly headers?: Readonly<Record<string, string | undefined>> } | undefined
  return { ...given, headers: { ...given?.headers, "idempotency-key": given?.headers?.["idempotency-key"] ?? crypto.randomUUID() } }
}
