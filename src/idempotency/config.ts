/** How long idempotency records are kept (contract section 4): `PRESSROOM_IDEMPOTENCY_TTL_SECONDS`, default one day. */
import { Config } from "effect"

export const idempotencyTtlSeconds = Config.integer("PRESSROOM_IDEMPOTENCY_TTL_SECONDS").pipe(
  Config.validate({ message: "PRESSROOM_IDEMPOTENCY_TTL_SECONDS must be a positive integer", validation: (n) => n > 0 }),
  Config.withDefault(86_400)
)
