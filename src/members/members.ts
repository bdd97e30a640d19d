/**
 * Members and invitations (contract section 12). The operator invites an email into an account;
 * the invitation's URL carries a single-use token valid for 72 hours, whose acceptance sets the
 * member's password (a new invitation for the same email is the operator's reset: it replaces the
 * earlier ones and, once accepted, the password, ending the member's sessions). An email belongs to
 * one account. Sign-in answers the same for a wrong password, an unknown email and a throttled one,
 * and costs the same hash in each case.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Data, Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Accounts } from "../accounts/accounts.ts"
import { InvalidRequest, InvalidStateTransition, type NotFound } from "../shared/errors.ts"
import { column, TimestampColumn } from "../shared/rows.ts"
import { Invitation, normalEmail } from "./member.ts"
import { passwordHashCost } from "./config.ts"
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, unmatchableHash, verifyPassword } from "./password.ts"
import { SignInThrottle } from "./sign-in-throttle.ts"
import { hashToken, isTokenShaped, newToken } from "./tokens.ts"

export const INVITATION_TTL_HOURS = 72

/** An invitation's token that is unknown, used, replaced or past its 72 hours: all alike to the person holding it. */
export class InvitationRefused extends Data.TaggedError("InvitationRefused") {}

export class Members extends Effect.Service<Members>()("pressroom/Members", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const accounts = yield* Accounts
    const throttle = yield* SignInThrottle
    const hashCost = yield* passwordHashCost
    const unmatchable = unmatchableHash(hashCost)

    const memberOfEmail = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String, accountId: column(Schema.String, "account_id") }),
      execute: (email) => sql`select id, account_id from members where email = ${email}`
    })
    const newInvitation = SqlSchema.single({
      Request: Schema.Struct({ memberId: Schema.String, tokenSha256: Schema.String }),
      Result: Schema.Struct({ id: Schema.String, expiresAt: column(TimestampColumn, "expires_at") }),
      execute: ({ memberId, tokenSha256 }) => sql`
              insert into invitations (id, member_id, token_sha256, expires_at)
              values (${randomUUID()}, ${memberId}, ${tokenSha256}, now() + make_interval(hours => ${INVITATION_TTL_HOURS}))
              returning id, expires_at`
    })
    const useInvitation = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ memberId: column(Schema.String, "member_id") }),
      execute: (tokenSha256) => sql`
              update invitations set used_at = now()
              where token_sha256 = ${tokenSha256} and used_at is null and expires_at > now()
              returning member_id`
    })
    const credentialOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String, passwordHash: column(Schema.NullOr(Schema.String), "password_hash") }),
      execute: (email) => sql`
          select id, password_hash from members where email = ${email}`
    })

    /** A new invitation of `email` into `accountId`, and the token its URL carries (the only copy). */
    const invite = (
      accountId: string,
      emailText: string
    ): Effect.Effect<{ readonly invitation: Invitation; readonly token: string }, InvalidRequest | NotFound | InvalidStateTransition> =>
      Effect.gen(function* () {
        const email = normalEmail(emailText)
        if (email === undefined) return yield* Effect.fail(InvalidRequest.unprocessable("email is not an email address", "email"))
        const account = yield* accounts.find(accountId)
        const token = newToken()
        const row = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`insert into members (id, account_id, email) values (${randomUUID()}, ${account.id}, ${email}) on conflict (email) do nothing`
              const member = yield* Effect.orDie(memberOfEmail(email))
              if (member.accountId !== account.id) {
                return yield* Effect.fail(new InvalidStateTransition({ currentState: "member_of_another_account", expectedStates: [] }))
              }
              yield* sql`update invitations set used_at = now() where member_id = ${member.id} and used_at is null`
              return yield* Effect.orDie(newInvitation({ memberId: member.id, tokenSha256: hashToken(token) }))
            })
          )
          .pipe(Effect.catchTag("SqlError", Effect.die))
        return { invitation: new Invitation({ id: row.id, email, expiresAt: row.expiresAt }), token }
      })

    /** Whether `token` is an invitation that can still be accepted (to show its page, or say it cannot be). */
    const invitationIsOpen = (token: string): Effect.Effect<boolean> =>
      isTokenShaped(token)
        ? sql`select 1 from invitations where token_sha256 = ${hashToken(token)} and used_at is null and expires_at > now()`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          )
        : Effect.succeed(false)

    /** Accepts the invitation `token` with `password`; the member it was for. */
    const acceptInvitation = (token: string, password: string): Effect.Effect<string, InvitationRefused | InvalidRequest> =>
      Effect.gen(function* () {
        yield* passwordProblem(password)
        if (!isTokenShaped(token)) return yield* Effect.fail(new InvitationRefused())
        const passwordHash = yield* hashPassword(password, hashCost)
        const accepted = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              const invitation = yield* useInvitation(hashToken(token))
              if (Option.isNone(invitation)) return Option.none<string>()
              const { memberId } = invitation.value
              yield* sql`update members set password_hash = ${passwordHash} where id = ${memberId}`
              yield* sql`update sessions set ended_at = now() where member_id = ${memberId} and ended_at is null`
              return Option.some(memberId)
            })
          )
          .pipe(Effect.orDie)
        return yield* Option.match(accepted, { onNone: () => Effect.fail(new InvitationRefused()), onSome: Effect.succeed })
      })

    /** The member whose email and password these are; none for any failure, throttled or not, alike. */
    const signIn = (emailText: string, password: string): Effect.Effect<Option.Option<string>> =>
      Effect.gen(function* () {
        const email = emailText.trim().toLowerCase().slice(0, 254)
        const locked = yield* throttle.isLocked(email)
        const member = Option.getOrUndefined(yield* Effect.orDie(credentialOf(email)))
        const stored = member?.passwordHash ?? unmatchable
        const matches = yield* verifyPassword(password.slice(0, MAX_PASSWORD_LENGTH), stored)
        if (locked) return Option.none()
        if (!matches || member === undefined) {
          yield* throttle.recordFailure(email)
          return Option.none()
        }
        return Option.some(member.id)
      })

    return { invite, invitationIsOpen, acceptInvitation, signIn } as const
  }),
  dependencies: [Accounts.Default, SignInThrottle.Default]
}) {}

/** 422 for a password the contract refuses: under 12 characters, or beyond any passphrase. */
export const passwordProblem = (password: string): Effect.Effect<void, InvalidRequest> =>
  [...password].length < MIN_PASSWORD_LENGTH
    ? Effect.fail(InvalidRequest.unprocessable(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`, "password"))
    : password.length > MAX_PASSWORD_LENGTH
      ? Effect.fail(InvalidRequest.unprocessable(`the password must have at most ${MAX_PASSWORD_LENGTH} characters`, "password"))
      : Effect.void
