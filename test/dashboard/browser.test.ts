/**
 * The dashboard in Debian's Chromium, on each database, as a member meets it: the invitation, a
 * password, sign-out and sign-in; a key with documents.render and documents.read made in the page
 * and copied with its copy button, a v1 conversion with it, its revocation in the page and then
 * 401; the overview counting the conversion; sign-out, after which the old cookie opens nothing.
 * Every page is checked with axe-core (no serious or critical violation), and at 375 px for a
 * horizontal scroll, on PGlite (a page is the same whichever database holds its data; checksPages
 * in test/helpers/browser.ts). The same journey with the keyboard alone, on PGlite too: sign-in, a key made, copied and
 * revoked, sign-out, by Tab, Space and Enter, each focused control drawn with its focus outline.
 */
import t from "tap"
import type { Locator, Page } from "playwright-core"
import { convert } from "../helpers/api.ts"
import {
  checkAccessibility,
  checksPages,
  unlessChecksPages,
  createAccountOnly,
  DESKTOP,
  invite,
  launchBrowser,
  PHONE,
  scrollsSideways
} from "../helpers/browser.ts"
import type { DatabaseKind } from "../helpers/database.ts"
import { pdfText } from "../helpers/pdf.ts"
import { forEachSharedServer, uniqueEmail } from "../helpers/shared-server.ts"
import type { TestContext } from "../helpers/tap.ts"

const browser = await launchBrowser(t)

/** axe-core, and at 375 px no horizontal scroll (on the database that checks pages). */
const checkPage = async (t: TestContext, database: { readonly kind: DatabaseKind }, page: Page, what: string) => {
  if (!checksPages(database)) return
  await checkAccessibility(t, database, page, what)
  t.notOk(await scrollsSideways(page), `${what}: no horizontal scroll at ${page.viewportSize()?.width} px`)
}

/**
 * Presses Tab until `target` has the focus (at most `max` times); whether it got it. A control
 * the keyboard cannot reach fails here. The focused control must show where the focus is.
 */
const tabTo = async (t: TestContext, page: Page, target: Locator, what: string, max = 60) => {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab")
    if (await target.evaluate((element) => element === document.activeElement)) {
      const outline = await target.evaluate((element) => getComputedStyle(element).outlineStyle)
      t.not(outline, "none", `${what}: reached by Tab, with a visible focus outline`)
      return
    }
  }
  t.fail(`${what}: not reached by Tab`)
}

const signIn = async (page: Page, url: string, email: string, password: string) => {
  await page.goto(`${url}/app/sign-in`)
  await page.getByLabel("Email").fill(email)
  await page.getByLabel("Password").fill(password)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.waitForURL("**/app/overview")
}

await forEachSharedServer(t, async (t, server, kind) => {
  const database = { kind }
  const accountId = await createAccountOnly(server)
  const email = uniqueEmail("ada")
  const password = "a long enough passphrase"

  const context = await browser.newContext({ viewport: DESKTOP })
  t.teardown(() => context.close())
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url })
  const page = await context.newPage()

  await t.test("invitation, password, sign-in", async (t) => {
    await page.goto(await invite(server, accountId, email))
    t.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Choose a password")
    await checkPage(t, database, page, "invitation page")
    t.equal(
      await page.getByLabel("Password").getAttribute("minlength"),
      "12",
      "the browser asks for 12 characters (the server too: security.test.ts)"
    )
    await page.getByLabel("Password").fill(password)
    await page.getByRole("button", { name: "Set password and sign in" }).click()
    await page.waitForURL("**/app/overview")
    t.ok(await page.getByRole("button", { name: "Sign out" }).isVisible(), "signed in after choosing the password")

    await page.getByRole("button", { name: "Sign out" }).click()
    await page.waitForURL("**/app/sign-in")
    await checkPage(t, database, page, "sign-in page")
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill("not the password at all")
    await page.getByRole("button", { name: "Sign in" }).click()
    t.match(await page.getByRole("alert").textContent(), /do not match/, "a wrong password is refused")
    await signIn(page, server.url, email, password)
    await checkPage(t, database, page, "overview")
  })

  let secret = ""
  await t.test("a key made in the page, copied, used, revoked", async (t) => {
    await page.getByRole("link", { name: "API keys" }).click()
    await page.waitForURL("**/app/keys")
    await checkPage(t, database, page, "API keys page")
    await page.getByLabel("Key name").fill("Billing service")
    await page.getByLabel("documents.render").check()
    await page.getByLabel("documents.read").check()
    await page.getByRole("button", { name: "Create key" }).click()
    await page.getByRole("button", { name: "Copy" }).click()
    await page.getByText("Copied to the clipboard.").waitFor()
    secret = await page.evaluate(() => navigator.clipboard.readText())
    t.match(secret, /^pk_live_[0-9a-f]{32}$/, "the copy button copies the key")
    t.equal(await page.locator("#new-secret").inputValue(), secret, "the field shows the same key")
    await checkPage(t, database, page, "API keys page with a new secret")

    const row = page.getByRole("row", { name: /Billing service/ })
    t.match(await row.textContent(), /documents\.render.*documents\.read/s, "the list shows the key's scopes")

    const converted = await convert(server, secret, { markdown: "# Made with a dashboard key\n\nIt works." })
    t.equal(converted.status, 200, "v1 convert with the key")
    t.match(pdfText(converted.pdf!), /Made with a dashboard key/)

    await page.goto(`${server.url}/app/keys`)
    t.notOk((await page.content()).includes(secret), "a later page never shows the secret")
    await page
      .getByRole("row", { name: /Billing service/ })
      .getByRole("button", { name: "Revoke" })
      .click()
    await page.waitForURL(/\/revoke\??$/)
    await checkPage(t, database, page, "revocation confirmation")
    await page.getByRole("button", { name: "Revoke" }).click()
    await page.waitForURL("**/app/keys?revoked=1")
    t.match(await page.getByRole("status").first().textContent(), /revoked/)
    t.equal((await convert(server, secret, { markdown: "# Again" })).status, 401, "the revoked key is refused at once")
  })

  await t.test("the overview shows the conversion", async (t) => {
    await page.getByRole("link", { name: "Overview" }).click()
    await page.waitForURL("**/app/overview")
    const used = page.locator(".stats div", { hasText: "Used" }).locator("dd")
    t.equal(await used.textContent(), "1", "one unit used")
    t.match(await page.locator("svg.chart desc").textContent(), /^1 units used in the last 30 days/)
  })

  await t.test("at 375 px", { skip: unlessChecksPages(database) }, async (t) => {
    const phone = await browser.newContext({ viewport: PHONE })
    t.teardown(() => phone.close())
    const small = await phone.newPage()
    await small.goto(`${server.url}/app/sign-in`)
    await checkPage(t, database, small, "sign-in page (375 px)")
    await signIn(small, server.url, email, password)
    await checkPage(t, database, small, "overview (375 px)")
    await small.goto(`${server.url}/app/keys`)
    await checkPage(t, database, small, "API keys page (375 px)")
    await small.goto(`${server.url}/app/no-such-page`)
    await checkPage(t, database, small, "not-found page (375 px)")
  })

  await t.test("with the keyboard alone", { skip: unlessChecksPages(database) }, async (t) => {
    const keyboard = await browser.newContext({ viewport: DESKTOP })
    t.teardown(() => keyboard.close())
    await keyboard.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url })
    const page = await keyboard.newPage()
    await page.goto(`${server.url}/app/sign-in`)
    await tabTo(t, page, page.getByLabel("Email"), "Email")
    await page.keyboard.type(email)
    await tabTo(t, page, page.getByLabel("Password"), "Password")
    await page.keyboard.type(password)
    await tabTo(t, page, page.getByRole("button", { name: "Sign in" }), "Sign in")
    await page.keyboard.press("Enter")
    await page.waitForURL("**/app/overview")

    await tabTo(t, page, page.getByRole("link", { name: "API keys" }), "the API keys link")
    await page.keyboard.press("Enter")
    await page.waitForURL("**/app/keys")
    await tabTo(t, page, page.getByLabel("Key name"), "Key name")
    await page.keyboard.type("Typed service")
    await tabTo(t, page, page.getByLabel("documents.read"), "the documents.read scope")
    await page.keyboard.press("Space")
    t.ok(await page.getByLabel("documents.read").isChecked(), "Space checks a scope")
    await tabTo(t, page, page.getByRole("button", { name: "Create key" }), "Create key")
    await page.keyboard.press("Enter")
    await page.getByRole("button", { name: "Copy" }).waitFor()
    await tabTo(t, page, page.getByRole("button", { name: "Copy" }), "Copy")
    await page.keyboard.press("Enter")
    await page.getByText("Copied to the clipboard.").waitFor()
    t.match(await page.evaluate(() => navigator.clipboard.readText()), /^pk_live_[0-9a-f]{32}$/, "the key copied by keyboard")

    await tabTo(t, page, page.getByRole("row", { name: /Typed service/ }).getByRole("button", { name: "Revoke" }), "the key's Revoke")
    await page.keyboard.press("Enter")
    await page.waitForURL(/\/revoke\??$/)
    await tabTo(t, page, page.getByRole("button", { name: "Revoke" }), "the confirmation's Revoke")
    await page.keyboard.press("Enter")
    await page.waitForURL("**/app/keys?revoked=1")
    const revokedRow = page.getByRole("row", { name: /Typed service/ })
    t.equal(await revokedRow.getByRole("button", { name: "Revoke" }).count(), 0, "the key is revoked: no Revoke left in its row")

    await tabTo(t, page, page.getByRole("button", { name: "Sign out" }), "Sign out")
    await page.keyboard.press("Enter")
    await page.waitForURL("**/app/sign-in")
  })

  await t.test("sign-out: the old cookie opens nothing", async (t) => {
    const [cookie] = (await context.cookies()).filter((c) => c.name === "pressroom_session")
    t.ok(cookie?.httpOnly, "the session cookie is HttpOnly")
    t.equal(cookie?.sameSite, "Lax")
    t.equal(cookie?.path, "/app")
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.waitForURL("**/app/sign-in")
    const replayed = await fetch(`${server.url}/app/keys`, {
      headers: { cookie: `pressroom_session=${cookie!.value}` },
      redirect: "manual"
    })
    t.equal(replayed.status, 303, "the ended session is sent to sign in")
    t.equal(replayed.headers.get("location"), "/app/sign-in")
  })
})
