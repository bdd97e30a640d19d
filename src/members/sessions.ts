/**
 * Dashboard sessions (contract section 12): an opaque random token in the member's cookie, kept
 * here only as its SHA-256, with the form token (CSRF) of the session beside it. A session is new
 * at every sign-in and ends at sign-out, after 12 hours without a request, or 7 days after it began.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { column } from "../shared/rows.ts"
import { hashToken, isTokenShaped, newToken } from "./tokens.ts"

export const IDLE_HOURS = 12
export const LIFETIME_DAYS = 7

export interface Session {
  readonly memberId: string
  readonly accountId: string
  readonly email: string
  readonly csrfToken: string
}

/** A live session's row, with its member's account and email. */
const SessionRow = Schema.Struct({
  id: Schema.String,
  memberId: column(Schema.String, "member_id"),
  accountId: column(Schema.String, "account_id"),
  email: Schema.String,
  csrfToken: column(Schema.String, "csrf_token")
})

export class Sessions extends Effect.Service<Sessions>()("pressroom/Sessions", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** A new session of `memberId`: the cookie's token (its only copy). */
    const start = (memberId: string): Effect.Effect<string> => {
      const token = newToken()
      return sql`
        insert into sessions (id, member_id, token_sha256, csrf_token)
        values (${randomUUID()}, ${memberId}, ${hashToken(token)}, ${newToken()})`.pipe(Effect.as(token), Effect.orDie)
    }

    const live = SqlSchema.findOne({
      Request: Schema.String,
      Result: SessionRow,
      execute: (tokenSha256) => sql`
          select s.id, s.member_id, m.account_id, m.email, s.csrf_token
          from sessions s join members m on m.id = s.member_id
          where s.token_sha256 = ${tokenSha256} and s.ended_at is null
            and s.last_seen_at > now() - make_interval(hours => ${IDLE_HOURS})
            and s.created_at > now() - make_interval(days => ${LIFETIME_DAYS})`
    })

    /**
     * The live session of the cookie's `token`, seen now: it counts as a request for the idle
     * limit (written at most once a minute, to spare the database a write per request).
     */
    const find = (token: string): Effect.Effect<Option.Option<Session>> =>
      Effect.gen(function* () {
        if (!isTokenShaped(token)) return Option.none()
        const found = yield* live(hashToken(token))
        if (Option.isNone(found)) return Option.none()
        const { id, ...session } = found.value
        yield* sql`update sessions set last_seen_at = now() where id = ${id} and last_seen_at < now() - interval '1 minute'`
        return Option.some(session)
      }).pipe(Effect.orDie)

    /** Ends the session of `token`, if there is one. */
    const end = (token: string): Effect.Effect<void> =>
      isTokenShaped(token)
        ? sql`update sessions set ended_at = now() where token_sha256 = ${hashToken(token)} and ended_at is null`.pipe(
            Effect.asVoid,
            Effect.orDie
          )
        : Effect.void

    return { start, find, end } as const
  })
}) {}
