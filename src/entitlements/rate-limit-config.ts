/**
 * The request rate classes and their per-minute figures (contract section 7), each overridable by
 * `PRESSROOM_RATE_LIMIT_<CLASS>_PER_MINUTE`. A figure is both the refill rate and the bucket's
 * capacity, so a quiet client may spend one minute's worth at once.
 */
import { Config } from "effect"

export const RATE_CLASSES = ["preview", "publish", "convert", "read", "write"] as const
export type RateClass = (typeof RATE_CLASSES)[number]

const perMinute = (rateClass: RateClass, fallback: number) => {
  const name = `PRESSROOM_RATE_LIMIT_${rateClass.toUpperCase()}_PER_MINUTE`
  return Config.integer(name).pipe(
    Config.validate({ message: `${name} must be a positive integer`, validation: (n) => n > 0 }),
    Config.withDefault(fallback)
  )
}

export const rateLimitConfig: Config.Config<Readonly<Record<RateClass, number>>> = Config.all({
  preview: perMinute("preview", 60),
  publish: perMinute("publish", 60),
  convert: perMinute("convert", 60),
  read: perMinute("read", 600),
  write: perMinute("write", 120)
})
