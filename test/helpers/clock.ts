/** A clock stopped at one instant, so that a test can stand on either side of a month's or a day's end (UTC). */
import { Clock, Effect } from "effect"

export const clockAt = (iso: string): Clock.Clock => {
  const millis = Date.parse(iso)
  const real = Clock.make()
  return {
    ...real,
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => millis,
    currentTimeMillis: Effect.succeed(millis),
    unsafeCurrentTimeNanos: () => BigInt(millis) * 1_000_000n,
    currentTimeNanos: Effect.succeed(BigInt(millis) * 1_000_000n),
    sleep: (duration) => real.sleep(duration)
  }
}
