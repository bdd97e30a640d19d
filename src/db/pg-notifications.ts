/**
 * PostgreSQL notifications on a connection of their own that comes back when it is lost.
 *
 * Why not `PgClient.listen` of @effect/sql-pg: it keeps one client for good and ignores that
 * client's errors, so after the server restarts or a network drops the connection, the process
 * never hears another notification: its slots would learn of queued jobs only at their 30 s
 * recheck. Here the listening client is replaced as soon as it errors or ends (with backoff up to
 * 5 s while the server is away), every channel is listened to again, and `resumed` tells
 * subscribers that what was sent in between is lost, so they look again for what they wait for.
 */
import { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, Redacted, Schedule, type Scope, Stream } from "effect"
import pg from "pg"
import { Notifications } from "./notifications.ts"

type Emit = (payload: string) => void

const messageOf = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/** Up to 5 s between attempts to reconnect: soon after a blip, without hammering a server that is down. */
const reconnectSchedule = Schedule.union(Schedule.exponential(Duration.millis(100)), Schedule.spaced(Duration.seconds(5)))

export const make = (url: Redacted.Redacted): Effect.Effect<Notifications["Type"], SqlError, Scope.Scope> =>
  Effect.gen(function* () {
    const subscribers = new Map<string, Set<Emit>>()
    const resumedSubscribers = new Set<() => void>()
    let client: pg.Client | undefined

    /**
     * Each client's LISTENs one after another: a channel subscribed while another's LISTEN runs
     * would otherwise queue a query on a busy client, which pg deprecates with a warning on stderr.
     */
    const listening = new WeakMap<pg.Client, Promise<unknown>>()
    const listenOn = (connected: pg.Client, channel: string) => {
      const next = (listening.get(connected) ?? Promise.resolve()).then(() => connected.query(`LISTEN ${pg.escapeIdentifier(channel)}`))
      listening.set(
        connected,
        next.catch(() => {})
      )
      return next
    }

    /**
     * A connected client listening on every channel asked for so far, and the reason it is lost
     * when it errors or ends (watched from before it connects, so no loss goes unseen).
     */
    const connect = Effect.tryPromise({
      try: async () => {
        // Keep-alive probes notice a peer that vanished without closing the connection.
        const fresh = new pg.Client({ connectionString: Redacted.value(url), keepAlive: true })
        const lost = new Promise<string>((resolve) => {
          fresh.on("error", (error) => resolve(messageOf(error)))
          fresh.on("end", () => resolve("the connection ended"))
        })
        try {
          await fresh.connect()
          fresh.on("notification", (message) => {
            for (const emit of subscribers.get(message.channel) ?? []) emit(message.payload ?? "")
          })
          for (const channel of subscribers.keys()) await listenOn(fresh, channel)
          return { connected: fresh, lost }
        } catch (error) {
          await fresh.end().catch(() => {})
          throw error
        }
      },
      catch: (cause) => new SqlError({ cause, message: "Failed to connect to listen for notifications" })
    })

    const connectRetrying = connect.pipe(
      Effect.tapError((error) => Effect.logWarning(`cannot listen for notifications yet (${messageOf(error.cause)}); retrying`)),
      Effect.retry(reconnectSchedule),
      Effect.orDie
    )

    const hold = (first: Effect.Effect.Success<typeof connect>) =>
      Effect.gen(function* () {
        let current = first
        while (true) {
          const why = yield* Effect.promise(() => current.lost)
          client = undefined
          yield* Effect.promise(() => current.connected.end().catch(() => {}))
          yield* Effect.logWarning(`the connection listening for notifications was lost (${why}); reconnecting`)
          current = yield* connectRetrying
          client = current.connected
          yield* Effect.logInfo("listening for notifications again")
          for (const resumed of resumedSubscribers) resumed()
        }
      })

    // Connected before anything subscribes, so no notification of the first moments is missed; a
    // server that cannot be reached at all refuses the start, as the pool does.
    const first = yield* connect
    client = first.connected
    yield* Effect.addFinalizer(() => Effect.promise(() => client?.end().catch(() => {}) ?? Promise.resolve()))
    yield* Effect.forkScoped(hold(first))

    return Notifications.of({
      listen: (channel) =>
        Stream.asyncPush<string>((emit) =>
          Effect.acquireRelease(
            Effect.sync(() => {
              const add: Emit = (payload) => emit.single(payload)
              const known = subscribers.get(channel)
              if (known) known.add(add)
              else {
                subscribers.set(channel, new Set([add]))
                // A channel new to a connected client is listened to now; a lost one on reconnect.
                if (client) listenOn(client, channel).catch(() => {})
              }
              return add
            }),
            (add) => Effect.sync(() => subscribers.get(channel)?.delete(add))
          )
        ),
      resumed: Stream.asyncPush<void>((emit) =>
        Effect.acquireRelease(
          Effect.sync(() => {
            const add = () => emit.single(undefined)
            resumedSubscribers.add(add)
            return add
          }),
          (add) => Effect.sync(() => resumedSubscribers.delete(add))
        )
      )
    })
  })
