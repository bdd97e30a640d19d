/**
 * Dashboard sessions (contract section 12): an opaque random token in the member's cookie, kept
 * here only as its SHA-256, with the form token (CSRF) of the session beside it. A session is new
 * at every sign-in and ends at sign-out, after 12 hours without a request, or 7 days after it began.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { hashToken, isTokenShaped, newToken } from "./tokens.ts"

export const IDLE_HOURS = 12
export const LIFETIME_DAYS = 7

export interface Session {
  readonly memberId: string
  readonly accountId: string
  readonly email: string
  readonly csrfToken: string
}

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

    /**
     * The live session of the cookie's `token`, seen now: it counts as a request for the idle
     * limit (written at most once a minute, to spare the database a write per request).
     */
    const find = (token: string): Effect.Effect<Option.Option<Session>> =>
      Effect.gen(function* () {
        if (!isTokenShaped(token)) return Option.none()
        const [row] = yield* sql<{ id: string; member_id: string; account_id: string; email: string; csrf_token: string }>`
          select s.id, s.member_id, m.account_id, m.email, s.csrf_token
          from sessions s join members m on m.id = s.member_id
          where s.token_sha256 = ${hashToken(token)} and s.ended_at is null
            and s.last_seen_at > now() - make_interval(hours => ${IDLE_HOURS})
            and s.created_at > now() - make_interval(days => ${LIFETIME_DAYS})`
        if (row === undefined) return Option.none()
        yield* sql`update sessions set last_seen_at = now() where id = ${row.id} and last_seen_at < now() - interval '1 minute'`
        return Option.some({ memberId: row.member_id, accountId: row.account_id, email: row.email, csrfToken: row.csrf_token })
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
