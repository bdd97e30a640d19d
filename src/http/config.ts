/** Where the server listens, and how long a connection may take (contract section 1). Port 0 asks the system for a free port (tests). */
import { Config } from "effect"

export const listenConfig = Config.all({
  port: Config.integer("PORT").pipe(
    Config.withDefault(8080),
    Config.validate({ message: "PORT must be between 0 and 65535", validation: (port) => port >= 0 && port <= 65535 })
  ),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1"))
})

const milliseconds = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be a positive number of milliseconds`, validation: (ms) => ms > 0 })
  )

/**
 * How long a client may take. A request's headers must arrive within `headersTimeoutMs` of its
 * first byte and the whole request (4 MiB at most) within `requestTimeoutMs`, however steadily
 * the bytes trickle in: past either the server answers 408 and closes the connection, so slow
 * clients cannot hold connections open. 20 s is ample for headers on any link; 120 s carries
 * 4 MiB at under 300 kbit/s. An idle kept-alive connection closes after `keepAliveTimeoutMs`
 * (Node's 5 s; behind a load balancer, set it above the balancer's idle timeout).
 */
export const connectionConfig = Config.all({
  headersTimeoutMs: milliseconds("PRESSROOM_HEADERS_TIMEOUT_MS", 20_000),
  requestTimeoutMs: milliseconds("PRESSROOM_REQUEST_TIMEOUT_MS", 120_000),
  keepAliveTimeoutMs: milliseconds("PRESSROOM_KEEP_ALIVE_TIMEOUT_MS", 5_000)
}).pipe(
  Config.validate({
    message: "PRESSROOM_HEADERS_TIMEOUT_MS must not exceed PRESSROOM_REQUEST_TIMEOUT_MS",
    validation: ({ headersTimeoutMs, requestTimeoutMs }) => headersTimeoutMs <= requestTimeoutMs
  })
)
