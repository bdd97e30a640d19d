/** Where the server listens (contract section 1). Port 0 asks the system for a free port (tests). */
import { Config } from "effect"

export const listenConfig = Config.all({
  port: Config.integer("PORT").pipe(
    Config.withDefault(8080),
    Config.validate({ message: "PORT must be between 0 and 65535", validation: (port) => port >= 0 && port <= 65535 })
  ),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1"))
})
