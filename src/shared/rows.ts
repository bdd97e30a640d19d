/** Reading rows of the database with the schemas of what they hold (`@effect/sql`'s `SqlSchema` decodes them). */
import { Schema } from "effect"

/** A field read from the column `name` (`accountId` from `account_id`). */
export const column = <S extends Schema.Schema.AnyNoContext>(schema: S, name: string) =>
  Schema.propertySignature(schema).pipe(Schema.fromKey(name))

/** A `timestamptz` column (a Date from the driver) as the API's ISO 8601 timestamp. */
export const TimestampColumn = Schema.transform(Schema.DateFromSelf, Schema.String, {
  strict: true,
  decode: (date) => date.toISOString(),
  encode: (text) => new Date(text)
})
