/**
 * The `Idempotency-Key` header (specification section 4): 8 to 200 characters, no control
 * characters. Mutating endpoints declare it with `.setHeaders(IdempotencyKeyHeader)`, so the
 * OpenAPI document lists it and a missing or invalid key is refused with 400 before the handler
 * runs; the handler then has the key as a string to give `Idempotency.run`.
 */
import { Schema } from "effect"

const rule = "8 to 200 characters without control characters"

export const IdempotencyKey = Schema.String.pipe(
  Schema.minLength(8, { message: () => `must be ${rule}` }),
  Schema.maxLength(200, { message: () => `must be ${rule}` }),
  Schema.pattern(/^[^\x00-\x1F\x7F]+$/, { message: () => `must be ${rule}` })
).annotations({
  title: "Idempotency-Key",
  description: "Reuse the same key and body to retry safely; the original result is replayed with Idempotency-Replayed: true."
})

export const IdempotencyKeyHeader = Schema.Struct({
  "idempotency-key": Schema.propertySignature(IdempotencyKey).annotations({
    missingMessage: () => `is required (${rule})`
  })
})
