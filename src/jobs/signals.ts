/**
 * Wake-ups between processes, over PostgreSQL notifications: a job became claimable, a job
 * ended, a cancel was asked for. The jobs table announces these itself, by a trigger
 * (`migrations/0004_job_announcements.sql`), in the statement that changes the job; the database
 * delivers them at commit to every process, this one included (PGlite within the COMMIT call).
 * Each process LISTENs once per channel and fans out in memory, because an UNLISTEN by one
 * subscriber would silence every other one on that connection. `publishLocal` is for wake-ups
 * that concern this process alone, such as its own delayed retry falling due.
 */
import { Effect, PubSub, type Queue, type Scope, Stream } from "effect"
import { Notifications } from "../db/notifications.ts"

export const SIGNALS = {
  /** A job is queued and due (payload: job id). */
  jobQueued: "pressroom_job_queued",
  /** A job reached a terminal state (payload: job id). */
  jobEnded: "pressroom_job_ended",
  /** A cancel of a running job was asked for (payload: job id). */
  cancelRequested: "pressroom_job_cancel"
} as const
export type Signal = (typeof SIGNALS)[keyof typeof SIGNALS]

export class JobSignals extends Effect.Service<JobSignals>()("pressroom/JobSignals", {
  scoped: Effect.gen(function* () {
    const notifications = yield* Notifications
    const hubs = new Map<Signal, PubSub.PubSub<string>>()
    for (const channel of Object.values(SIGNALS)) {
      const hub = yield* PubSub.unbounded<string>()
      hubs.set(channel, hub)
      yield* notifications.listen(channel).pipe(
        Stream.runForEach((payload) => PubSub.publish(hub, payload)),
        Effect.catchAllCause((cause) => Effect.logError(`listening on ${channel} stopped`, cause)),
        Effect.forkScoped
      )
    }
    return {
      publishLocal: (signal: Signal, payload: string) => PubSub.publish(hubs.get(signal)!, payload).pipe(Effect.asVoid),
      /** A queue of the signal's payloads from now on, for the caller's scope. */
      subscribe: (signal: Signal): Effect.Effect<Queue.Dequeue<string>, never, Scope.Scope> => PubSub.subscribe(hubs.get(signal)!),
      /**
       * An element each time listening resumed after a lost connection: every signal sent
       * meanwhile was lost, so a subscriber looks again for what it waits for.
       */
      resumed: notifications.resumed
    } as const
  })
}) {}
