/** A warning of a render (contract section 6): `{ code, message, line }`, line 1-based or null. */
import { Schema } from "effect"

export const RenderWarning = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  line: Schema.NullOr(Schema.Int)
}).annotations({ identifier: "Warning" })
export type RenderWarning = typeof RenderWarning.Type

/** A job response carries at most 100 warnings (specification 2.13). */
export const MAX_WARNINGS = 100
