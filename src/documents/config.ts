/** The document source window (contract section 1): how long a document lives after its last activity. */
import { Config } from "effect"

export const documentWindowSeconds = Config.integer("PRESSROOM_DOCUMENT_WINDOW_SECONDS").pipe(
  Config.withDefault(2_592_000),
  Config.validate({ message: "PRESSROOM_DOCUMENT_WINDOW_SECONDS must be at least 1", validation: (n) => n >= 1 })
)

/** How long admission of a preview or publication waits for its job to end before answering 202 (contract section 1). */
export const syncThresholdMs = Config.integer("PRESSROOM_SYNC_THRESHOLD_MS").pipe(
  Config.withDefault(2_000),
  Config.validate({ message: "PRESSROOM_SYNC_THRESHOLD_MS must be from 0 to 60000", validation: (n) => n >= 0 && n <= 60_000 })
)
