/** The Retention object (specification 2.3): when a resource expires, and its deletion. */
import { Schema } from "effect"

export const Retention = Schema.Struct({
  deleteRequestedAt: Schema.NullOr(Schema.Date),
  deletedAt: Schema.NullOr(Schema.Date),
  expiresAt: Schema.Date,
  policy: Schema.Literal("managed_default")
}).annotations({ identifier: "Retention" })
export type Retention = typeof Retention.Type
