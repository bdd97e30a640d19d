/** The synchronous threshold (contract sections 1 and 6): how long a v2 request waits for its job to end before answering 202. */
import { Config } from "effect"

export const syncThresholdMs = Config.integer("PRESSROOM_SYNC_THRESHOLD_MS").pipe(
  Config.withDefault(2_000),
  Config.validate({ message: "PRESSROOM_SYNC_THRESHOLD_MS must be from 0 to 60000", validation: (n) => n >= 0 && n <= 60_000 })
)
