/**
 * PostgreSQL notifications (`LISTEN`): how processes sharing one database wake each other without
 * polling. Send with `select pg_notify(channel, payload)` inside the transaction whose commit the
 * listeners should see; both databases deliver it at commit.
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Context, type Stream } from "effect"

export class Notifications extends Context.Tag("pressroom/Notifications")<
  Notifications,
  {
    /** Payloads sent on `channel` from now on, by this process or any other on the same database. */
    readonly listen: (channel: string) => Stream.Stream<string, SqlError>
    /**
     * An element each time listening resumes after the connection was lost: notifications sent
     * meanwhile never arrive, so a subscriber looks again for what it waits for.
     */
    readonly resumed: Stream.Stream<void>
  }
>() {}
