/** Webhook subscription settings (contract section 1): the rotation overlap and the cap per owner. */
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
