/**
 * npm run screenshots — the dashboard's pages at 1280 and 375 px, in the light and dark schemes,
 * written to docs/screenshots/<page>-<width>[-dark].png. Starts `pressroom serve` from dist/ (run
 * `npm run build` first) on a fresh embedded database, invites a member, makes a conversion so that
 * the overview has something to show, and drives Debian's Chromium through the pages: those of
 * issue 33 (sign-in, overview, keys) and of the web channel (documents, the editor with a preview,
 * a document's history, webhooks and their deliveries, templates).
 */
import type { Page } from "playwright-core"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { packageRoot } from "../src/render/fonts/manifest.ts"
import { convert, createAccount } from "../test/helpers/api.ts"
import { DESKTOP, invite, PHONE, startChromium } from "../test/helpers/browser.ts"
import { startServer } from "../test/helpers/server.ts"

const out = join(packageRoot, "docs", "screenshots")
const SAMPLE =
  "# Quarterly letter\n\nThe presses ran all night, and the **new edition** left on time.\n\n## Numbers\n\n| Month | Copies |\n|---|---:|\n| July | 12,400 |\n| August | 13,050 |\n\nA <u>late</u> correction.\n"
mkdirSync(out, { recursive: true })

const server = await startServer(undefined, {})
const browser = await startChromium()
try {
  const { accountId, key } = await createAccount(server, { name: "Acme Publishing" })
  for (const title of ["Quarterly report", "Invoice 2026-118"]) await convert(server, key, { markdown: `# ${title}\n\nBody.` })
  const email = "ada@acme.example"
  const password = "a long enough passphrase"
  const invitation = await invite(server, accountId, email)

  const shoot = async (page: Page, name: string, suffix: string) =>
    page.screenshot({ path: join(out, `${name}-${page.viewportSize()!.width}${suffix}.png`), fullPage: true })

  /** The web channel's pages: a webhook subscribed, a document written and previewed, its history, the webhook's deliveries, the templates. */
  const shootWebChannel = async (page: Page, suffix: string) => {
    await page.goto(`${server.url}/app/webhooks`)
    if ((await page.getByRole("link", { name: "Deliveries" }).count()) === 0) {
      // An endpoint that does not resolve: its deliveries show failed attempts and their reasons.
      await page.getByLabel("Endpoint").fill("https://hooks.acme.example/pressroom")
      await page.getByLabel("Description").fill("Accounting")
      await page.getByRole("button", { name: "Add subscription" }).click()
      await shoot(page, "webhook-created", suffix)
    }
    await page.goto(`${server.url}/app/documents/new`)
    await page.getByLabel("Title").fill("Quarterly letter")
    await page.getByLabel("Markdown").fill(SAMPLE)
    await page.getByRole("radio", { name: "Executive", exact: true }).check()
    await page.getByRole("button", { name: "Preview" }).click()
    await page.locator("iframe.pdf-frame").waitFor()
    await page
      .frames()
      .find((frame) => frame.url().endsWith("/preview"))
      ?.waitForLoadState()
    // The browser's PDF viewer draws after its frame has loaded; nothing in the page says when.
    await page.waitForTimeout(2000)
    await shoot(page, "editor", suffix)
    const documentPath = new URL(page.url()).pathname.replace(/\/edit$/, "")
    await page.goto(`${server.url}${documentPath}`)
    await shoot(page, "document", suffix)
    await page.goto(`${server.url}/app/documents`)
    await shoot(page, "documents", suffix)
    await page.goto(`${server.url}/app/webhooks`)
    await shoot(page, "webhooks", suffix)
    await page.getByRole("link", { name: "Deliveries" }).first().click()
    await shoot(page, "deliveries", suffix)
    await page.goto(`${server.url}/app/templates`)
    await shoot(page, "templates", suffix)
  }

  for (const [scheme, suffix] of [
    ["light", ""],
    ["dark", "-dark"]
  ] as const) {
    for (const viewport of [DESKTOP, PHONE]) {
      const context = await browser.newContext({ viewport, colorScheme: scheme })
      const page = await context.newPage()
      if (viewport === DESKTOP && scheme === "light") {
        await page.goto(invitation)
        await shoot(page, "invitation", suffix)
        await page.getByLabel("Password").fill(password)
        await page.getByRole("button", { name: "Set password and sign in" }).click()
        await page.waitForURL("**/app/overview")
        await context.clearCookies()
      }
      await page.goto(`${server.url}/app/sign-in`)
      await shoot(page, "sign-in", suffix)
      await page.getByLabel("Email").fill(email)
      await page.getByLabel("Password").fill(password)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.waitForURL("**/app/overview")
      await shoot(page, "overview", suffix)
      await page.goto(`${server.url}/app/keys`)
      await page.getByLabel("Key name").fill(`Billing service (${viewport.width} px, ${scheme})`)
      await page.getByLabel("documents.render").check()
      await page.getByLabel("documents.read").check()
      await page.getByRole("button", { name: "Create key" }).click()
      await shoot(page, "keys-created", suffix)
      await page.goto(`${server.url}/app/keys`)
      await page.getByRole("button", { name: "Revoke" }).first().click()
      await page.waitForURL(/\/revoke\??$/)
      await shoot(page, "revoke", suffix)
      await shootWebChannel(page, suffix)
      await context.close()
    }
  }
} finally {
  await browser.close()
  await server.stop()
}
console.log(`screenshots in ${out}`)
