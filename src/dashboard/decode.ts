/**
 * A form's values decoded with the API's own request schema, so that the dashboard accepts exactly
 * what the API accepts; a refusal reads as the API's 400 would (naming the first field at fault).
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import { InvalidRequest } from "../shared/errors.ts"

export const decodedRequest = <A, I>(schema: Schema.Schema<A, I>, value: unknown): Effect.Effect<A, InvalidRequest> =>
  Either.match(Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })(value), {
    onLeft: (error) => Effect.fail(InvalidRequest.malformed(ParseResult.TreeFormatter.formatErrorSync(error))),
    onRight: Effect.succeed
  })
