/**
 * Request bodies are strict (an unknown property is a 400), but values whose problem is their
 * content (a template id, a locale, a colour, an accent, a paper, a font family) are plain strings
 * in request schemas: the contract answers a bad one with 422, which the domain's own schema
 * decides (`decodeContent`). The OpenAPI document still lists what a client may send (`loose`).
 */
import { Effect, Either, JSONSchema, ParseResult, Schema } from "effect"
import { InvalidRequest } from "./errors.ts"

/** Parse options of a request body: an unknown property is a malformed request. */
export const strict = { parseOptions: { onExcessProperty: "error" } } as const

/**
 * `{}`, the body of an operation that takes none or an empty object (cancel, rotate, disable). An
 * empty struct alone takes any value but null (an array, a number, `{"x":1}`: it has no property
 * to be strict about), so the filter holds it to `{}`.
 */
export const EmptyObject = Schema.Struct({})
  .pipe(
    Schema.filter((value) => {
      if (typeof value !== "object" || Array.isArray(value)) return "must be {} or no body"
      const [unexpected] = Object.keys(value)
      return unexpected === undefined || { path: [unexpected], message: "is unexpected" }
    })
  )
  .annotations({ identifier: "EmptyObject", jsonSchema: { type: "object", maxProperties: 0 } })

/**
 * A string whose allowed values the document lists; any string passes the request schema. Its type
 * is their union all the same, so the typed client completes them and refuses a typo at compile
 * time, while a value cast past that still reaches the server, which answers 422.
 */
export const oneOf = <const Value extends string>(values: ReadonlyArray<Value>, description?: string): Schema.Schema<Value, string> =>
  Schema.String.annotations({
    ...(description ? { description } : {}),
    jsonSchema: { type: "string", enum: values }
  }) as unknown as Schema.Schema<Value, string>

/**
 * A request's version of a domain value: a boolean stays a boolean (a string there is malformed,
 * 400), anything else becomes a string that the document describes with the domain schema's JSON
 * Schema (its enum or pattern), for `decodeContent` to check.
 */
export const loose = (schema: Schema.Schema.AnyNoContext): Schema.Schema.AnyNoContext => {
  if (schema.ast._tag === "BooleanKeyword") return schema
  const { $schema: _, ...jsonSchema } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  return Schema.String.annotations({ jsonSchema })
}

/** The request's version of a struct of optional domain values (render options, a custom template's overrides). */
export const looseFields = (fields: Readonly<Record<string, Schema.optional<Schema.Schema.AnyNoContext>>>) =>
  Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, Schema.optional(loose(field.from))])) as Record<
    string,
    Schema.optional<Schema.Schema.AnyNoContext>
  >

/**
 * `value` decoded by `schema`, or 422 naming the first problem under `field` (`options` gives
 * `options.bodyTextColor: must be a colour like #1a2b3c`). Unknown properties are refused.
 */
export const decodeContent = <A, I>(schema: Schema.Schema<A, I>, value: unknown, field: string): Effect.Effect<A, InvalidRequest> => {
  // Effect compiles a schema's decoder once and keeps it with the schema.
  return Either.match(Schema.decodeUnknownEither(schema, { onExcessProperty: "error", errors: "first" })(value), {
    onRight: (decoded) => Effect.succeed(decoded),
    onLeft: (error) => {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
      const where = [field, ...(issue?.path ?? []).map(String)].filter((part) => part !== "").join(".")
      return Effect.fail(InvalidRequest.unprocessable(`${where}: ${issue?.message ?? "invalid"}`, where))
    }
  })
}
