/** How often the sweep runs (src/sweeper.ts): `PRESSROOM_SWEEP_INTERVAL_MS`, read apart from the sweep so that src/http/settings.ts checks it without loading it. */
import { Config } from "effect"

export const sweepIntervalConfig = Config.integer("PRESSROOM_SWEEP_INTERVAL_MS").pipe(
  Config.withDefault(30_000),
  Config.validate({ message: "PRESSROOM_SWEEP_INTERVAL_MS must be at least 100", validation: (ms) => ms >= 100 })
)
