/**
 * The client for code that does not use Effect: `new PressroomClient({ baseUrl, apiKey })` has the
 * methods of the Effect client (effect-client.ts), group by group, each returning a Promise of the
 * same value; the Promise rejects with errors.ts's classes, or a TypeError for a request the API
 * definition refuses before sending it. Derived mechanically, so every
 * endpoint of the API definition is here with its exact request and response types.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import { Cause, Effect, Exit, Option, ParseResult } from "effect"
import { PublishedError } from "../shared/errors.ts"
import { type ClientOptions, type EffectClient, InvalidArgument, makeEffectClient } from "./effect-client.ts"
import { ConnectionError, pressroomErrorOf, ResponseError } from "./errors.ts"

type Promised<M> = M extends (request: infer R) => Effect.Effect<infer A, infer _E> ? (request: R) => Promise<A> : never

export type PromiseClient = {
  readonly [Group in keyof EffectClient]: { readonly [Name in keyof EffectClient[Group]]: Promised<EffectClient[Group][Name]> }
}

/** What a failed call rejects with. */
const rejection = (cause: Cause.Cause<unknown>): unknown => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure)) return Cause.squash(cause)
  const error = failure.value
  if (error instanceof PublishedError) return pressroomErrorOf(error.error)
  if (error instanceof InvalidArgument) return new TypeError(error.message, { cause: error.cause })
  if (Cause.isTimeoutException(error)) return new ConnectionError("no answer in time", { cause: error })
  if (HttpClientError.isHttpClientError(error)) {
    return error._tag === "RequestError" && error.reason === "Transport"
      ? new ConnectionError(error.message, { cause: error })
      : new ResponseError(error.message, undefined, { cause: error })
  }
  if (ParseResult.isParseError(error))
    return new ResponseError(`the answer is not as the API describes it: ${error.message}`, undefined, { cause: error })
  return new ResponseError("the server answered with an error", error)
}

const run = <A>(effect: Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromiseExit(effect).then((exit) => (Exit.isSuccess(exit) ? exit.value : Promise.reject(rejection(exit.cause))))

// The class takes its methods from the Effect client, group by group, so it declares them as this interface.
export interface PressroomClient extends PromiseClient {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor assigns every member of the interface.
export class PressroomClient {
  constructor(options: ClientOptions) {
    // Building the client does no I/O, so it completes synchronously; fetch (Node 20, Deno, browsers) carries the requests.
    const client = Effect.runSync(Effect.provide(makeEffectClient(options), FetchHttpClient.layer))
    for (const [group, methods] of Object.entries(client)) {
      const promised: Record<string, (request: unknown) => Promise<unknown>> = {}
      for (const [name, method] of Object.entries(methods as Record<string, (request: unknown) => Effect.Effect<unknown, unknown>>)) {
        promised[name] = (request) => run(method(request))
      }
      Object.assign(this, { [group]: promised })
    }
  }
}
