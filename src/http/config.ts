/** Where the server listens (contract section 1). */
import { Config } from "effect"

export const listenConfig = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(8080)),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1"))
})
