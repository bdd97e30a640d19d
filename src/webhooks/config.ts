/** Webhook settings (contract section 1): of subscriptions (the rotation overlap, the cap per owner) and of deliveries. */
import { Config } from "effect"

export const rotationOverlapSeconds = Config.integer("PRESSROOM_WEBHOOK_ROTATION_OVERLAP_SECONDS").pipe(
  Config.withDefault(86_400),
  Config.validate({ message: "PRESSROOM_WEBHOOK_ROTATION_OVERLAP_SECONDS must be 0 or more", validation: (n) => n >= 0 })
)

/** How many active subscriptions an owner may have; disabled ones do not count. */
export const maxSubscriptions = Config.integer("PRESSROOM_WEBHOOK_MAX_SUBSCRIPTIONS").pipe(
  Config.withDefault(20),
  Config.validate({ message: "PRESSROOM_WEBHOOK_MAX_SUBSCRIPTIONS must be at least 1", validation: (n) => n >= 1 })
)

export const subscriptionConfig = Config.all({ rotationOverlapSeconds, maxSubscriptions })

/** One delivery attempt's limit: resolution, connection, TLS and the answer. */
export const timeoutMs = Config.integer("PRESSROOM_WEBHOOK_TIMEOUT_MS").pipe(
  Config.withDefault(15_000),
  Config.validate({ message: "PRESSROOM_WEBHOOK_TIMEOUT_MS must be between 100 and 600000", validation: (n) => n >= 100 && n <= 600_000 })
)

/**
 * Seconds before each attempt, the first counted from the event: as many attempts as entries. A
 * comma-separated list of whole seconds, at least one.
 */
export const retrySchedule = Config.string("PRESSROOM_WEBHOOK_RETRY_SCHEDULE").pipe(
  Config.withDefault("0,5,300,1800,7200,18000,36000,36000"),
  Config.validate({
    message: "PRESSROOM_WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of 1 to 50 whole numbers of seconds",
    validation: (text) => {
      const entries = text.split(",")
      return entries.length <= 50 && entries.every((entry) => /^\s*\d{1,7}\s*$/.test(entry))
    }
  }),
  Config.map((text) => text.split(",").map((entry) => Number(entry.trim())))
)

/** A subscription whose deliveries have all failed this long is disabled. */
export const disableAfterSeconds = Config.integer("PRESSROOM_WEBHOOK_DISABLE_AFTER_SECONDS").pipe(
  Config.withDefault(432_000),
  Config.validate({ message: "PRESSROOM_WEBHOOK_DISABLE_AFTER_SECONDS must be at least 1", validation: (n) => n >= 1 })
)

/** Lifts the address guard (tests, closed networks). */
export const allowPrivateNetworks = Config.boolean("PRESSROOM_WEBHOOK_ALLOW_PRIVATE_NETWORKS").pipe(Config.withDefault(false))

export const deliveryConfig = Config.all({ timeoutMs, retrySchedule, disableAfterSeconds, allowPrivateNetworks })

/**
 * How long an ended delivery (with its attempts) and a dispatched event stay in the history after
 * their last change before the sweeper removes them; 30 days by default.
 */
export const historySeconds = Config.integer("PRESSROOM_WEBHOOK_HISTORY_SECONDS").pipe(
  Config.withDefault(2_592_000),
  Config.validate({ message: "PRESSROOM_WEBHOOK_HISTORY_SECONDS must be at least 1", validation: (n) => n >= 1 })
)
