/** Timestamps as the API writes and reads them: ISO 8601 date-times (specification section 2). */
import { Schema } from "effect"

/** A timestamp in a response, always written by `Date.toISOString()` (UTC). */
export const Timestamp = Schema.String.annotations({ jsonSchema: { type: "string", format: "date-time" } })

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i

/** Whether `text` is an ISO 8601 date-time with an offset naming a real instant (no 30 February, no 25:00). */
export const isIsoDateTime = (text: string): boolean => {
  const match = ISO_DATE_TIME.exec(text)
  if (!match) return false
  const [year, month, day, hour, minute, second = 0, offsetHours = 0, offsetMinutes = 0] = match
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part)))
  const date = new Date(Date.UTC(year!, month! - 1, day!))
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month! - 1 &&
    date.getUTCDate() === day &&
    hour! <= 23 &&
    minute! <= 59 &&
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59
  )
}

/**
 * A timestamp in a request: an ISO 8601 date-time with its offset (`2026-08-01T00:00:00Z`).
 * Anything else is a malformed request (400), never guessed at, so `2026` or a local time without
 * an offset cannot silently mean something the client did not intend.
 */
export const IsoDateTime = Schema.String.pipe(
  Schema.filter(isIsoDateTime, {
    message: () => "must be an ISO 8601 date-time with an offset, e.g. 2026-08-01T00:00:00Z",
    jsonSchema: { format: "date-time" }
  })
)
