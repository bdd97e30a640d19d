/**
 * The dashboard's security points (contract section 12, issue 33 item 4) over HTTP, on each
 * database, with a server whose public base URL is https (so its cookies are Secure and the
 * Origin every form must come from is that URL's): no API key opens a dashboard route and no
 * session cookie opens /api; a cross-site form post, a post without Origin and one without the
 * CSRF token are refused; a member of account A sees nothing of B; sign-in throttling with one
 * answer for every failure, counted in the database (across processes on PostgreSQL); a new session
 * token at sign-in; expired, used and replaced invitations refused; a revoked key refused at once;
 * a key's secret shown once and found in no later page, log or database row; the security headers.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import t from "tap"
import { createHash } from "node:crypto"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { convert, createAccount, requestJson } from "../helpers/api.ts"
import { createAccountOnly, invite } from "../helpers/browser.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"
import { ADMIN_TOKEN, startServer } from "../helpers/server.ts"
import { csrfOf, type PageResponse, pathOf, request } from "./member-client.ts"

const PUBLIC_BASE = "https://dashboard.example"
const ORIGIN = { origin: PUBLIC_BASE }
const PASSWORD = "correct horse battery staple"

/** Every file under `dir`, read whole (the embedded database's files), joined. */
const filesUnder = (dir: string): Buffer =>
  Buffer.concat(
    readdirSync(dir, { recursive: true, encoding: "utf8" })
      .map((name) => join(dir, name))
      .filter((path) => statSync(path).isFile())
      .map((path) => readFileSync(path))
  )

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, { ...database.env, PRESSROOM_PUBLIC_BASE_URL: PUBLIC_BASE })

  /** Accepts an invitation of `email` into `accountId`; the session cookie it gives. */
  const member = async (accountId: string, email: string) => {
    const path = pathOf(await invite(server, accountId, email))
    const page = await request(server, "GET", path)
    const form = page.cookies.get("pressroom_form")!
    const accepted = await request(server, "POST", path, {
      cookies: { pressroom_form: form },
      form: { csrf: csrfOf(page), password: PASSWORD },
      headers: ORIGIN
    })
    if (accepted.status !== 303) throw new Error(`invitation not accepted: ${accepted.status} ${accepted.body}`)
    return accepted.cookies.get("pressroom_session")!
  }

  /** A signed-in page and its form token. */
  const signedInPage = async (session: string, path: string) => {
    const page = await request(server, "GET", path, { cookies: { pressroom_session: session } })
    return { page, csrf: csrfOf(page) }
  }

  const signIn = async (email: string, password: string, cookies: Record<string, string> = {}) => {
    // The form as a visitor gets it (a signed-in browser is sent on to the overview); then posted with every cookie.
    const page = await request(server, "GET", "/app/sign-in")
    const form = page.cookies.get("pressroom_form")!
    return request(server, "POST", "/app/sign-in", {
      cookies: { ...cookies, pressroom_form: form },
      form: { csrf: csrfOf(page), email, password },
      headers: ORIGIN
    })
  }

  const accountA = await createAccountOnly(server, "Account A")
  const sessionA = await member(accountA, "a@example.com")
  const b = await createAccount(server, { name: "Account B" })

  await t.test("cookies and headers", async (t) => {
    const page = await request(server, "GET", "/app/sign-in")
    const csp = page.headers.get("content-security-policy") ?? ""
    t.match(csp, /script-src 'self'(;|$)/, "scripts from the server only")
    t.notMatch(csp, /unsafe-inline|unsafe-eval|https?:/, "no inline, eval'd or remote script")
    t.match(csp, /frame-ancestors 'none'/)
    t.equal(page.headers.get("referrer-policy"), "same-origin")
    t.notMatch(page.body, /<script(?![^>]*\ssrc=)[^>]*>/, "no inline script element")
    const signedIn = await signIn("a@example.com", PASSWORD)
    const cookie = signedIn.headers.getSetCookie().find((line) => line.startsWith("pressroom_session="))!
    t.match(cookie, /; HttpOnly/)
    t.match(cookie, /; SameSite=Lax/)
    t.match(cookie, /; Path=\/app(;|$)/)
    t.match(cookie, /; Secure/, "Secure: the public base URL is https")
  })

  await t.test("separation of API keys and sessions", async (t) => {
    const withKey = { headers: { authorization: `Bearer ${b.key}` } }
    const page = await request(server, "GET", "/app/overview", withKey)
    t.equal(page.status, 303, "an API key does not open a page")
    t.equal(page.headers.get("location"), "/app/sign-in")
    t.equal((await request(server, "POST", "/app/keys", { ...withKey, form: { name: "x" } })).status, 401, "nor a state change")
    const cookie = `pressroom_session=${sessionA}`
    t.equal(
      (await requestJson(server, "GET", "/api/v2/documents", { headers: { cookie } })).status,
      401,
      "a session cookie does not open /api/v2"
    )
    t.equal((await convert(server, undefined, { markdown: "# x" }, {})).status, 401)
    const byCookie = await fetch(`${server.url}/api/v1/convert`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ markdown: "# x" })
    })
    t.equal(byCookie.status, 401, "nor /api/v1")
  })

  await t.test("CSRF token and Origin", async (t) => {
    const { csrf } = await signedInPage(sessionA, "/app/keys")
    const cookies = { pressroom_session: sessionA }
    const form = { csrf, name: "forged", scopes: "documents.read" }
    const crossSite = await request(server, "POST", "/app/keys", { cookies, form, headers: { origin: "https://evil.example" } })
    t.equal(crossSite.status, 403, "a cross-site form post is refused")
    t.equal((await request(server, "POST", "/app/keys", { cookies, form })).status, 403, "a post without Origin is refused")
    const noToken = await request(server, "POST", "/app/keys", {
      cookies,
      form: { name: "forged", scopes: "documents.read" },
      headers: ORIGIN
    })
    t.equal(noToken.status, 403, "a post without the token is refused")
    const wrongToken = await request(server, "POST", "/app/keys", { cookies, form: { ...form, csrf: "x".repeat(43) }, headers: ORIGIN })
    t.equal(wrongToken.status, 403, "a post with another token is refused")
    const listed = await requestJson(server, "GET", `/admin/v1/accounts/${accountA}/keys`, { token: ADMIN_TOKEN })
    t.same(listed.body.keys, [], "no refused post made a key")
    const signOut = await request(server, "POST", "/app/sign-out", { cookies, form: { csrf }, headers: { origin: "https://evil.example" } })
    t.equal(signOut.status, 403, "nor signed out across sites")
  })

  let secret = ""
  await t.test("a key's secret shown once; a revoked key refused at once", async (t) => {
    const { csrf } = await signedInPage(sessionA, "/app/keys")
    const cookies = { pressroom_session: sessionA }
    const created = await request(server, "POST", "/app/keys", {
      cookies,
      form: { csrf, name: "CI <deploy>", scopes: ["documents.render", "documents.read"], environment: "live" },
      headers: ORIGIN
    })
    t.equal(created.status, 200)
    t.equal(created.headers.get("cache-control"), "no-store")
    secret = /value="(pk_live_[0-9a-f]{32})"/.exec(created.body)?.[1] ?? ""
    t.ok(secret, "the page shows the secret")
    t.match(created.body, /CI &lt;deploy&gt;/, "the name is escaped")
    t.equal((await convert(server, secret, { markdown: "# With a member's key" })).status, 200)

    const keys = await requestJson(server, "GET", `/admin/v1/accounts/${accountA}/keys`, { token: ADMIN_TOKEN })
    const [key] = keys.body.keys
    t.equal(key.name, "CI <deploy>")
    t.same(key.scopes, ["documents.render", "documents.read"])
    t.notOk(JSON.stringify(keys.body).includes(secret), "the admin list has no secret")

    const later = await request(server, "GET", "/app/keys", { cookies })
    t.notOk(later.body.includes(secret), "no later page shows it")
    t.match(later.body, new RegExp(key.prefix), "the list shows its prefix")

    const revoked = await request(server, "POST", `/app/keys/${key.id}/revoke`, { cookies, form: { csrf }, headers: ORIGIN })
    t.equal(revoked.status, 303)
    t.equal((await convert(server, secret, { markdown: "# After" })).status, 401, "refused at once")
  })

  await t.test("a member of A sees nothing of B", async (t) => {
    const keysOfB = await requestJson(server, "GET", `/admin/v1/accounts/${b.accountId}/keys`, { token: ADMIN_TOKEN })
    const keyOfB = keysOfB.body.keys[0]
    const cookies = { pressroom_session: sessionA }
    const { csrf, page } = await signedInPage(sessionA, "/app/keys")
    t.notOk(page.body.includes(keyOfB.prefix), "B's key is not in A's list")
    t.equal((await request(server, "GET", `/app/keys/${keyOfB.id}/revoke`, { cookies })).status, 404)
    const revoke = await request(server, "POST", `/app/keys/${keyOfB.id}/revoke`, { cookies, form: { csrf }, headers: ORIGIN })
    t.equal(revoke.status, 404, "revoking B's key is a 404")
    t.equal((await convert(server, b.key, { markdown: "# B still works" })).status, 200, "and B's key still works")
    const invited = await requestJson(server, "POST", `/admin/v1/accounts/${b.accountId}/invitations`, {
      token: ADMIN_TOKEN,
      body: { email: "A@example.com" }
    })
    t.equal(invited.status, 409, "an email of A cannot be invited into B")
  })

  await t.test("invitations: short password, used, replaced, expired", async (t) => {
    const path = pathOf(await invite(server, accountA, "c@example.com"))
    const page = await request(server, "GET", path)
    const cookies = { pressroom_form: page.cookies.get("pressroom_form")! }
    const short = await request(server, "POST", path, { cookies, form: { csrf: csrfOf(page), password: "eleven char" }, headers: ORIGIN })
    t.equal(short.status, 422, "a password under 12 characters is refused")
    const accepted = await request(server, "POST", path, { cookies, form: { csrf: csrfOf(page), password: PASSWORD }, headers: ORIGIN })
    t.equal(accepted.status, 303, "and the invitation still works")
    t.equal((await request(server, "GET", path)).status, 410, "a used invitation is refused")
    const again = await request(server, "POST", path, {
      cookies,
      form: { csrf: csrfOf(page), password: "another password entirely" },
      headers: ORIGIN
    })
    t.equal(again.status, 410, "and cannot set the password again")

    const first = pathOf(await invite(server, accountA, "d@example.com"))
    const second = pathOf(await invite(server, accountA, "d@example.com"))
    t.equal((await request(server, "GET", first)).status, 410, "a replaced invitation is refused")
    t.equal((await request(server, "GET", second)).status, 200)

    if (database.kind === "postgres") {
      const expiring = pathOf(await invite(server, accountA, "e@example.com"))
      await runWith(
        database,
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`update invitations set expires_at = now() - interval '1 second' where used_at is null`
        )
      )
      t.equal((await request(server, "GET", expiring)).status, 410, "an expired invitation is refused")
    }
  })

  await t.test("sign-in: a new session token, the old one ended", async (t) => {
    const first = await signIn("a@example.com", PASSWORD)
    const old = first.cookies.get("pressroom_session")!
    const second = await signIn("a@example.com", PASSWORD, { pressroom_session: old })
    const renewed = second.cookies.get("pressroom_session")!
    t.ok(renewed && renewed !== old, "a new token at sign-in")
    t.equal(
      (await request(server, "GET", "/app/overview", { cookies: { pressroom_session: old } })).status,
      303,
      "the previous session ended"
    )
    t.equal((await request(server, "GET", "/app/overview", { cookies: { pressroom_session: renewed } })).status, 200)
  })

  await t.test("sign-in throttling, one answer for every failure", async (t) => {
    const email = "throttled@example.com"
    await member(accountA, email)
    const answer = (response: PageResponse, typed: string) => [
      response.status,
      response.body.replaceAll(typed, "EMAIL").replace(/value="[^"]{43}"/, "")
    ]
    const unknown = answer(await signIn("nobody@example.com", PASSWORD), "nobody@example.com")
    for (let i = 0; i < 10; i++) {
      const wrong = await signIn(email, `wrong password ${i}`)
      t.same(answer(wrong, email), unknown, `failure ${i + 1}: the same answer as an unknown email`)
    }
    // Counted in the database: on PostgreSQL a second process sees the same count.
    const other = database.kind === "postgres" ? await startServer(t, { ...database.env, PRESSROOM_PUBLIC_BASE_URL: PUBLIC_BASE }) : server
    const page = await request(other, "GET", "/app/sign-in")
    const refused = await request(other, "POST", "/app/sign-in", {
      cookies: { pressroom_form: page.cookies.get("pressroom_form")! },
      form: { csrf: csrfOf(page), email, password: PASSWORD },
      headers: ORIGIN
    })
    t.same(answer(refused, email), unknown, "the right password is refused too, with the same answer")
    t.equal(refused.cookies.get("pressroom_session"), undefined, "and no session")
    t.equal((await signIn("a@example.com", PASSWORD)).status, 303, "another email is not throttled")
  })

  await t.test("the secret is in no log and no database row", async (t) => {
    t.ok(secret)
    t.notOk(server.output().includes(secret), "not in the server's output")
    if (database.kind === "pglite") {
      const files = filesUnder(join(database.env.PRESSROOM_DATA_DIR!, "db"))
      t.ok(files.includes(createHash("sha256").update(secret).digest("hex")), "its hash is in the database's files (they are written)")
      t.notOk(files.includes(secret), "the secret is not")
    } else {
      const dump = await runWith(
        database,
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`select row_to_json(k)::text as row from api_keys k`)
      )
      t.notOk(JSON.stringify(dump).includes(secret), "not in any api_keys row")
    }
  })
})
