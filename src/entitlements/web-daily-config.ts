/** The web channel's daily pool (contract section 12): units per UTC day for a `free` account's publications from the dashboard. */
import { Config } from "effect"

export const webDailyUnits = Config.integer("PRESSROOM_WEB_DAILY_UNITS").pipe(
  Config.withDefault(3),
  Config.validate({ message: "PRESSROOM_WEB_DAILY_UNITS must be an integer of at least 0", validation: (n) => n >= 0 })
)
