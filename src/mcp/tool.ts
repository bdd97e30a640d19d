/**
 * What an MCP tool is here: a name and a description written for a model, its arguments and its
 * result as Effect schemas (the REST API's own, so the JSON Schemas a client sees are generated
 * from the same definitions as the OpenAPI document), the admission it needs (scope and rate
 * class, as its REST operation), and its body.
 */
import { type Effect, JSONSchema, Schema } from "effect"
import type { ApiScope, Principal } from "../accounts/principal.ts"
import type { RateClass } from "../entitlements/rate-limiter.ts"
import { IdempotencyKey } from "../idempotency/key.ts"
import type { PressroomError } from "../shared/errors.ts"

export interface Tool<A = any, I = any, O = any, R = any> {
  readonly name: string
  readonly description: string
  /** The arguments, without `idempotencyKey` (added for the tools that persist). */
  readonly input: Schema.Schema<A, I> & { readonly fields: Schema.Struct.Fields }
  readonly output: Schema.Schema<O, any>
  readonly scopes: ApiScope | ReadonlyArray<ApiScope>
  readonly rateClass: RateClass
  /** Whether the tool changes something, and so takes an optional `idempotencyKey`. */
  readonly persists: boolean
  /** The body, once admitted; `requestSha256` is the canonical hash of the call (contract section 13). */
  readonly run: (principal: Principal, args: A, requestSha256: string) => Effect.Effect<O, PressroomError, R>
}

export const tool = <A, I, O, R>(definition: Tool<A, I, O, R>): Tool<A, I, O, R> => definition

/** The schema a call's arguments are decoded with: the tool's, plus `idempotencyKey` when it persists. */
export const argumentsSchema = (tool: Tool) =>
  tool.persists
    ? Schema.Struct({ ...tool.input.fields, idempotencyKey: Schema.optional(IdempotencyKey) })
    : Schema.Struct(tool.input.fields)

/**
 * A JSON Schema whose top level is an object, as MCP wants: a schema with an identifier would be
 * generated as a `$ref`, so its fields are taken into an anonymous struct first.
 */
const objectSchema = (schema: Schema.Schema.Any) => {
  const { $schema: _, ...json } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  // An empty struct is generated as "any object or array"; a tool without arguments takes an empty object.
  return (json.type === "object" ? json : { type: "object", properties: {}, additionalProperties: false }) as { type: "object" } & Record<
    string,
    unknown
  >
}

export const inputSchemaOf = (tool: Tool) => objectSchema(argumentsSchema(tool))

export const outputSchemaOf = (tool: Tool) => {
  const output = tool.output as unknown as Schema.Struct<any>
  return objectSchema("fields" in output ? Schema.Struct(output.fields) : output)
}
