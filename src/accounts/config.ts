/** The credentials' configuration (contract section 1). */
import { Config, Option, Redacted } from "effect"
import type { KeyEnvironment } from "./principal.ts"

/** Which keys this server accepts; also the environment of a new key that names none. */
export const keyEnvironmentConfig: Config.Config<KeyEnvironment> = Config.literal(
  "live",
  "test"
)("PRESSROOM_KEY_ENVIRONMENT").pipe(Config.withDefault("live" as const))

/** The admin API's bearer token; none (unset or blank) turns the admin API off. */
export const adminTokenConfig: Config.Config<Option.Option<Redacted.Redacted>> = Config.option(
  Config.redacted("PRESSROOM_ADMIN_TOKEN")
).pipe(Config.map(Option.filter((token) => Redacted.value(token).trim() !== "")))
