/**
 * npm run screenshots — the dashboard's pages at 1280 and 375 px, in the light and dark schemes,
 * written to docs/screenshots/<page>-<width>[-dark].png. Starts `pressroom serve` from dist/ (run
 * `npm run build` first) on a fresh embedded database, invites a member, makes a conversion so that
 * the overview has something to show, and drives Debian's Chromium through the pages.
 */
import { chromium, type Page } from "playwright-core"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { packageRoot } from "../src/render/fonts/manifest.ts"
import { convert, createAccount } from "../test/helpers/api.ts"
import { CHROMIUM, DESKTOP, invite, PHONE } from "../test/helpers/browser.ts"
import { startServer } from "../test/helpers/server.ts"

const out = join(packageRoot, "docs", "screenshots")
mkdirSync(out, { recursive: true })

const server = await startServer(undefined, {})
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run"
  ]
})
try {
  const { accountId, key } = await createAccount(server, { name: "Acme Publishing" })
  for (const title of ["Quarterly report", "Invoice 2026-118"]) await convert(server, key, { markdown: `# ${title}\n\nBody.` })
  const email = "ada@acme.example"
  const password = "a long enough passphrase"
  const invitation = await invite(server, accountId, email)

  const shoot = async (page: Page, name: string, suffix: string) =>
    page.screenshot({ path: join(out, `${name}-${page.viewportSize()!.width}${suffix}.png`), fullPage: true })

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
      await context.close()
    }
  }
} finally {
  await browser.close()
  await server.stop()
}
console.log(`screenshots in ${out}`)
