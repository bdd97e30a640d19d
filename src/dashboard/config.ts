/** The dashboard's configuration (contract section 12): on unless `PRESSROOM_DASHBOARD=off`. */
import { Config, Context, Option } from "effect"
import { publicBaseUrlConfig } from "../artifacts/config.ts"

export const dashboardConfig = Config.all({
  enabled: Config.string("PRESSROOM_DASHBOARD").pipe(
    Config.withDefault("on"),
    Config.validate({ message: "PRESSROOM_DASHBOARD must be on or off", validation: (value) => value === "on" || value === "off" }),
    Config.map((value) => value === "on")
  ),
  /** The origin every state change must come from, when the public base URL says it (else the request's own). */
  publicOrigin: Config.map(
    publicBaseUrlConfig,
    Option.map((base) => new URL(base).origin)
  ),
  /** Cookies are `Secure` when the public base URL is https. */
  secureCookies: Config.map(
    publicBaseUrlConfig,
    Option.exists((base) => base.startsWith("https:"))
  )
})
export type DashboardConfig = Config.Config.Success<typeof dashboardConfig>

/** The configuration as the dashboard's handlers read it. */
export class DashboardSettings extends Context.Tag("pressroom/dashboard/Settings")<DashboardSettings, DashboardConfig>() {}
