/**
 * The web channel's pages over plain HTTP (contract section 12; issue 34), on each database: a
 * free account's publication from the dashboard takes a unit of the day's pool, which the overview
 * and the editor show apart from the month's; the preview and download routes refuse another
 * account's artifact (404, as the API); a custom template is deleted by its account and by no
 * other.
 */
import t from "tap"
import { requestJson, usageOf } from "../helpers/api.ts"
import { invite } from "../helpers/browser.ts"
import { ADMIN_TOKEN } from "../helpers/server.ts"
import { forEachSharedServer, uniqueEmail } from "../helpers/shared-server.ts"
import { csrfOf, pathOf, request } from "./member-client.ts"

const PASSWORD = "correct horse battery staple"

await forEachSharedServer(t, async (t, server) => {
  const origin = { origin: new URL(server.url).origin }

  /** A new account of `plan` with a signed-in member; the account's id and the member's session cookie. */
  const member = async (plan: "free" | "monthly", email: string) => {
    const created = await requestJson(server, "POST", "/admin/v1/accounts", { token: ADMIN_TOKEN, body: { name: email, plan } })
    const accountId = created.body.account.id as string
    const path = pathOf(await invite(server, accountId, email))
    const page = await request(server, "GET", path)
    const accepted = await request(server, "POST", path, {
      cookies: { pressroom_form: page.cookies.get("pressroom_form")! },
      form: { csrf: csrfOf(page), password: PASSWORD },
      headers: origin
    })
    return { accountId, cookies: { pressroom_session: accepted.cookies.get("pressroom_session")! } }
  }
  const a = await member("free", uniqueEmail("a"))
  const b = await member("monthly", uniqueEmail("b"))
  const get = (who: typeof a, path: string) => request(server, "GET", path, { cookies: who.cookies })
  const post = async (who: typeof a, formPage: string, path: string, form: Record<string, string>) =>
    request(server, "POST", path, { cookies: who.cookies, form: { csrf: csrfOf(await get(who, formPage)), ...form }, headers: origin })

  let artifactId = ""
  await t.test("a free account's publication from the dashboard: the day's pool, shown apart", async (t) => {
    t.match((await get(a, "/app/overview")).body, /Today's publications from this dashboard: 0 used, 3 left/)
    t.match((await get(a, "/app/documents/new")).body, /Publishing uses 1 unit of today(?:'|&#39;|&#x27;)s web allowance \(3 left today\)/)
    const published = await post(a, "/app/documents/new", "/app/documents", {
      title: "Daily",
      markdown: "# Daily pool\n\nFrom the dashboard.",
      templateId: "clean",
      locale: "en",
      filename: "daily.pdf",
      intent: "publish"
    })
    t.equal(published.status, 303, "published")
    const location = published.headers.get("location")!
    const jobId = new URL(location, server.url).searchParams.get("job")!
    t.ok(jobId, "the page names the job")
    let usage = await usageOf(server, a.accountId)
    for (let i = 0; i < 600 && usage.webDaily?.used !== 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      usage = await usageOf(server, a.accountId)
    }
    t.match(usage, { used: 0, webDaily: { used: 1, remaining: 2 } }, "a unit of the day's pool, not the month's")
    t.match((await get(a, "/app/overview")).body, /Today's publications from this dashboard: 1 used, 2 left/, "the overview shows it apart")

    let edit = await get(a, location)
    for (let i = 0; i < 600 && !/\/app\/artifacts\/[0-9a-f-]{36}\/download/.test(edit.body); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      edit = await get(a, location)
    }
    artifactId = /\/app\/artifacts\/([0-9a-f-]{36})\/download/.exec(edit.body)?.[1] ?? ""
    t.ok(artifactId, "the page links the publication's PDF")
  })

  await t.test("another account's artifact: 404 on the preview and download routes", async (t) => {
    const own = await get(a, `/app/artifacts/${artifactId}/preview`)
    t.equal(own.status, 200, "the owner's preview")
    t.match(own.headers.get("content-security-policy"), /frame-ancestors 'self'/)
    t.equal((await get(a, `/app/artifacts/${artifactId}/download`)).status, 200, "the owner's download")
    t.equal((await get(b, `/app/artifacts/${artifactId}/preview`)).status, 404, "another account's member: no preview")
    t.equal((await get(b, `/app/artifacts/${artifactId}/download`)).status, 404, "nor download")
    t.equal((await request(server, "GET", `/app/artifacts/${artifactId}/preview`)).status, 303, "no session: sent to sign in")
  })

  await t.test("custom templates: deleted by their account, by no other", async (t) => {
    const created = await post(a, "/app/templates", "/app/templates/custom", { name: "House style", baseTemplateId: "executive" })
    t.ok([200, 303].includes(created.status), "created")
    const listed = (await get(a, "/app/templates")).body
    const templateId = /action="\/app\/templates\/custom\/([^/"]+)\/delete"/.exec(listed)?.[1] ?? ""
    t.ok(templateId, "listed with a delete button")
    t.notOk((await get(b, "/app/templates")).body.includes(templateId), "not in another account's list")
    const byOther = await post(b, "/app/templates", `/app/templates/custom/${templateId}/delete`, {})
    t.equal(byOther.status, 404, "another account cannot delete it")
    t.match((await get(a, "/app/templates")).body, /House style/, "still there")
    const deleted = await post(a, "/app/templates", `/app/templates/custom/${templateId}/delete`, {})
    t.equal(deleted.status, 303, "its account deletes it")
    const after = (await get(a, "/app/templates")).body
    t.notOk(after.includes(templateId), "gone from the list")
    t.notMatch(after, /House style/)
  })
})
