/**
 * Members and keys in process, on each database (contract section 12; issue 33 items 1, 2 and 4):
 * an expired, used or replaced invitation refused (the HTTP test can expire one only on
 * PostgreSQL, whose files a second process may open); a session ended after 12 hours idle, 7 days
 * in all, or at sign-out; a key made for a member records the member;
 * what a member creates or changes (documents, revisions, webhook subscriptions and their secrets
 * and disabling, custom templates and their deletion, a key's revocation) records the member, and
 * the same change made with a key (or by the operator) records null;
 * a key's `lastUsedAt` written off the request's path and at most once a minute per key, by the
 * process that skips the write within the minute (on a clock the test moves) and by the statement,
 * which skips a row another process wrote within the minute.
 */
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Either, Layer, Option, Schedule } from "effect"
import { scryptSync } from "node:crypto"
import t from "tap"
import { AccountAdministration as Administration } from "../../src/accounts/administration.ts"
import { ApiKeys } from "../../src/accounts/api-keys.ts"
import { ALL_SCOPES, type Principal } from "../../src/accounts/principal.ts"
import { Documents } from "../../src/documents/documents.ts"
import { Members } from "../../src/members/members.ts"
import { Sessions } from "../../src/members/sessions.ts"
import { hashToken } from "../../src/members/tokens.ts"
import { toDefinition } from "../../src/templates/custom-template.ts"
import { CustomTemplates } from "../../src/templates/repository.ts"
import { WebhookSubscriptions } from "../../src/webhooks/subscriptions.ts"
import { clockAt } from "../helpers/clock.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { runtimeOf, stubPlatform } from "../helpers/platform.ts"

const PASSWORD = "correct horse battery staple"

t.test("members and keys", (t) =>
  forEachDatabase(t, async (t, database) => {
    // The platform the dashboard and the REST API share (a stub renderer: nothing here renders).
    const { layer: platform } = await stubPlatform(database, ConfigProvider.fromMap(new Map([["PRESSROOM_RENDER_WORKERS", "1"]])))
    const run = runtimeOf(
      t,
      Layer.mergeAll(Members.Default, Administration.Default, ApiKeys.Default, Sessions.Default).pipe(Layer.provideMerge(platform))
    )
    const query = <Row extends object>(make: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<Row>, unknown>) =>
      run(Effect.orDie(Effect.flatMap(SqlClient.SqlClient, make)))

    const { account } = await run(Effect.flatMap(Administration, (admin) => admin.createAccount({ name: "Members", plan: "monthly" })))
    const invite = (email: string) => run(Effect.flatMap(Members, (members) => members.invite(account.id, email)))
    const accept = (token: string, password = PASSWORD) =>
      run(Effect.either(Effect.flatMap(Members, (members) => members.acceptInvitation(token, password))))
    const isOpen = (token: string) => run(Effect.flatMap(Members, (members) => members.invitationIsOpen(token)))

    let memberId = ""
    await t.test("invitations: expired, used and replaced ones refused", async (t) => {
      const expiring = await invite("late@example.com")
      await query((sql) => sql`update invitations set expires_at = now() - interval '1 second' where id = ${expiring.invitation.id}`)
      t.notOk(await isOpen(expiring.token), "an invitation past its 72 hours does not open")
      t.match(await accept(expiring.token), { _tag: "Left", left: { _tag: "InvitationRefused" } }, "nor sets a password")

      const used = await invite("ada@example.com")
      t.ok(await isOpen(used.token))
      const accepted = await accept(used.token)
      t.ok(Either.isRight(accepted), "an open invitation is accepted")
      memberId = Either.getOrThrow(accepted)
      t.notOk(await isOpen(used.token), "a used invitation no longer opens")
      t.match(await accept(used.token, "another password entirely"), { _tag: "Left", left: { _tag: "InvitationRefused" } })

      const first = await invite("bob@example.com")
      const second = await invite("bob@example.com")
      t.notOk(await isOpen(first.token), "a replaced invitation does not open")
      t.ok(await isOpen(second.token), "its replacement does")
    })

    await t.test("a password is kept as scrypt at OWASP's cost (N 2^17, r 8, p 1), and signs in; another does not", async (t) => {
      const [row] = await query<{ password_hash: string }>((sql) => sql`select password_hash from members where id = ${memberId}`)
      const [scheme, logN, r, p, salt, hash] = row!.password_hash.split("$")
      t.same([scheme, logN, r, p], ["scrypt", "17", "8", "1"], "the parameters stored with the hash")
      const expected = scryptSync(PASSWORD, Buffer.from(salt!, "base64url"), 32, { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 })
      t.equal(hash, expected.toString("base64url"), "the hash is scrypt's of the password and the stored salt")
      const signIn = (password: string) => run(Effect.flatMap(Members, (members) => members.signIn("ada@example.com", password)))
      t.same(await signIn(PASSWORD), Option.some(memberId))
      t.same(await signIn(`${PASSWORD}!`), Option.none())
    })

    await t.test("sessions: 12 hours idle, 7 days in all, sign-out", async (t) => {
      const start = () => run(Effect.flatMap(Sessions, (sessions) => sessions.start(memberId)))
      const live = async (token: string) => (await run(Effect.flatMap(Sessions, (sessions) => sessions.find(token))))._tag === "Some"
      const [idle, old, ended, fresh] = [await start(), await start(), await start(), await start()]
      t.ok(await live(idle), "a new session opens")
      const setBack = (token: string, assignments: string) =>
        run(
          Effect.orDie(
            Effect.flatMap(SqlClient.SqlClient, (sql) =>
              sql.unsafe(`update sessions set ${assignments} where token_sha256 = $1`, [hashToken(token)])
            )
          )
        )
      await setBack(idle, "last_seen_at = now() - interval '11 hours 59 minutes'")
      t.ok(await live(idle), "seen 11:59 ago: still open (and seen now)")
      await setBack(idle, "last_seen_at = now() - interval '12 hours 1 minute'")
      t.notOk(await live(idle), "12 hours without a request end it")
      await setBack(old, "created_at = now() - interval '7 days 1 minute'")
      t.notOk(await live(old), "7 days after it began, in use or not, it ends")
      await run(Effect.flatMap(Sessions, (sessions) => sessions.end(ended)))
      t.notOk(await live(ended), "sign-out ends it")
      t.ok(await live(fresh), "the member's other sessions stay open")
    })

    const key = await run(
      Effect.flatMap(Administration, (admin) =>
        admin.createKey(account.id, { name: "Billing", scopes: ["documents.render"], environment: "live" }, memberId)
      )
    )
    await t.test("a key made by a member records the member", async (t) => {
      const [row] = await query<{ by: string | null }>(
        (sql) => sql`select created_by_member_id as by from api_keys where id = ${key.key.id}`
      )
      t.equal(row?.by, memberId)
    })

    await t.test("what a member changes records the member; a key's change records null", async (t) => {
      const asMember: Principal = {
        accountId: account.id,
        actor: { kind: "member", memberId },
        plan: "monthly",
        scopes: new Set(ALL_SCOPES)
      }
      const asKey: Principal = { ...asMember, actor: { kind: "key", keyId: key.key.id } }
      /** The `column`s of `table`'s row `id`. */
      const recorded = async (table: string, id: string, ...columns: ReadonlyArray<string>) => {
        const [row] = await query<Record<string, string | null>>((sql) =>
          sql.unsafe(`select ${columns.join(", ")} from ${table} where id = $1`, [id])
        )
        return row
      }
      const revision = (markdown: string) => ({ markdown, parentRevisionId: null, spec: { templateId: "clean", locale: "en" } })

      // Each change made by one principal on what the other made, so that each column shows its own changer.
      for (const [by, other, expected, otherExpected] of [
        [asMember, asKey, memberId, null],
        [asKey, asMember, null, memberId]
      ] as const) {
        const who = expected === null ? "a key" : "a member"
        const made = await run(
          Effect.flatMap(Documents, (documents) => documents.create(by, { taskId: "t", title: "T", revision: revision("# One") }))
        )
        t.same(
          await recorded("documents", made.document.id, "created_by_member_id"),
          { created_by_member_id: expected },
          `${who}'s document`
        )
        t.same(
          await recorded("revisions", made.revision.id, "created_by_member_id"),
          { created_by_member_id: expected },
          `its first revision`
        )
        const revised = await run(Effect.flatMap(Documents, (documents) => documents.revise(other, made.document.id, revision("# Two"))))
        t.same(
          await recorded("revisions", revised.revision.id, "created_by_member_id"),
          { created_by_member_id: otherExpected },
          `a revision the other made of ${who}'s document records the other`
        )

        const definition = { endpoint: "https://hooks.example.com/pressroom", eventTypes: ["job.succeeded"], description: null }
        const { subscription } = await run(Effect.flatMap(WebhookSubscriptions, (subscriptions) => subscriptions.create(other, definition)))
        const columns = ["created_by_member_id", "secret_created_by_member_id", "disabled_by_member_id"]
        t.same(
          await recorded("webhook_subscriptions", subscription.id, ...columns),
          { created_by_member_id: otherExpected, secret_created_by_member_id: otherExpected, disabled_by_member_id: null },
          "a new subscription records its maker, as its secret's"
        )
        await run(Effect.flatMap(WebhookSubscriptions, (subscriptions) => subscriptions.rotate(by, subscription.id)))
        t.same(
          await recorded("webhook_subscriptions", subscription.id, ...columns),
          { created_by_member_id: otherExpected, secret_created_by_member_id: expected, disabled_by_member_id: null },
          `${who}'s rotation records who made the new secret`
        )
        await run(Effect.flatMap(WebhookSubscriptions, (subscriptions) => subscriptions.disable(by, subscription.id)))
        t.same(
          await recorded("webhook_subscriptions", subscription.id, ...columns),
          { created_by_member_id: otherExpected, secret_created_by_member_id: expected, disabled_by_member_id: expected },
          `${who}'s disabling records who disabled it`
        )

        const template = await run(
          Effect.flatMap(Effect.orDie(toDefinition({ name: "House", baseTemplateId: "clean", options: {} })), (definition) =>
            Effect.flatMap(CustomTemplates, (templates) => templates.create(by, definition))
          )
        )
        t.same(
          await recorded("custom_templates", template.id, "created_by_member_id", "deleted_by_member_id"),
          { created_by_member_id: expected, deleted_by_member_id: null },
          `${who}'s template`
        )
        await run(Effect.flatMap(CustomTemplates, (templates) => templates.delete(other, template.id)))
        t.same(
          await recorded("custom_templates", template.id, "created_by_member_id", "deleted_by_member_id"),
          { created_by_member_id: expected, deleted_by_member_id: otherExpected },
          "its deletion (the row stays, deleted_at set) records who deleted it"
        )
      }

      // Keys are revoked by a member in the dashboard, or by the operator (no principal): null.
      const revocable = () =>
        run(Effect.flatMap(Administration, (admin) => admin.createKey(account.id, { name: "Spare", scopes: ["documents.read"] })))
      const byMember = await revocable()
      await run(Effect.flatMap(Administration, (admin) => admin.revokeKey(byMember.key.id, account.id, memberId)))
      t.same(
        await recorded("api_keys", byMember.key.id, "revoked_by_member_id"),
        { revoked_by_member_id: memberId },
        "a member's revocation"
      )
      await run(Effect.flatMap(Administration, (admin) => admin.revokeKey(byMember.key.id)))
      t.same(
        await recorded("api_keys", byMember.key.id, "revoked_by_member_id"),
        { revoked_by_member_id: memberId },
        "revoking again changes nothing: the first revocation's member stays, as its revokedAt does"
      )
      const byOperator = await revocable()
      await run(Effect.flatMap(Administration, (admin) => admin.revokeKey(byOperator.key.id)))
      t.same(await recorded("api_keys", byOperator.key.id, "revoked_by_member_id"), { revoked_by_member_id: null }, "the operator's")
    })

    await t.test("lastUsedAt: off the request's path, at most once a minute per key", async (t) => {
      const lastUsed = async () => {
        const [row] = await query<{ at: Date | null }>((sql) => sql`select last_used_at as at from api_keys where id = ${key.key.id}`)
        return row?.at ? new Date(row.at).getTime() : null
      }
      /** `lastUsedAt` once it differs from `before` (written by a fiber of its own), or `before` after a second. */
      const settled = (before: number | null) =>
        run(
          Effect.promise(lastUsed).pipe(
            Effect.filterOrFail((at) => at !== before),
            Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 20 }),
            Effect.orElseSucceed(() => before)
          )
        )
      /** Authenticates the key at `iso` with `keys` (this process's service, or another's). */
      const authenticate = (iso: string, keys: Effect.Effect<ApiKeys, never, ApiKeys | SqlClient.SqlClient> = ApiKeys) =>
        run(
          Effect.withClock(
            Effect.flatMap(keys, (k) => k.authenticate(key.secret, "live")),
            clockAt(iso)
          )
        )

      t.equal(await lastUsed(), null, "never used")
      t.ok((await authenticate("2026-11-28T10:00:00.000Z"))._tag === "Some", "the key authenticates")
      const first = await settled(null)
      t.ok(first, "its first use is written")

      // The row made older than a minute, so that only this process's own skip can hold the write back.
      await query((sql) => sql`update api_keys set last_used_at = now() - interval '2 minutes' where id = ${key.key.id}`)
      const aged = await lastUsed()
      await authenticate("2026-11-28T10:00:59.999Z")
      t.equal(await settled(aged), aged, "a use within the minute (on this process's clock) writes nothing")
      await authenticate("2026-11-28T10:01:00.000Z")
      const written = await settled(aged)
      t.ok(written !== null && written > aged!, "a use a minute later writes again")

      // Another process (a service of its own, which has written nothing) on the same row.
      const other = Effect.provide(ApiKeys, ApiKeys.Default)
      await authenticate("2026-11-28T10:05:00.000Z", other)
      t.equal(await settled(written), written, "another process's use within the minute of the row's time writes nothing")
    })
  })
)
