/** The document source window (contract section 1): how long a document lives after its last activity. */
import { Config } from "effect"

export const documentWindowSeconds = Config.integer("PRESSROOM_DOCUMENT_WINDOW_SECONDS").pipe(
  Config.withDefault(2_592_000),
  Config.validate({ message: "PRESSROOM_DOCUMENT_WINDOW_SECONDS must be at least 1", validation: (n) => n >= 1 })
)
