/**
 * What the dashboard's browser tests of the web channel share: a member invited into an account
 * and signed in through the invitation page, as a person would; axe-core on a page (no serious or
 * critical violation); no horizontal scroll.
 */
import AxeBuilder from "@axe-core/playwright"
import { type Browser, chromium, type Page } from "playwright-core"
import { requestJson } from "./api.ts"
import { until } from "./lifecycle.ts"
import { ADMIN_TOKEN, type RunningServer } from "./server.ts"
import type { TestContext } from "./tap.ts"

export const MEMBER_PASSWORD = "correct horse battery staple"

/** Debian's Chromium, closed when `t` ends. */
export const launchBrowser = async (t: TestContext): Promise<Browser> => {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run"
    ]
  })
  t.teardown(() => browser.close())
  return browser
}

/** A page of a new browser context, signed in as a member just invited into `accountId`. */
export const signInAsNewMember = async (t: TestContext, browser: Browser, server: RunningServer, accountId: string): Promise<Page> => {
  const email = `member-${accountId.slice(0, 8)}@example.com`
  const invited = await requestJson(server, "POST", `/admin/v1/accounts/${accountId}/invitations`, { token: ADMIN_TOKEN, body: { email } })
  if (invited.status !== 201) throw new Error(`invitation failed: ${invited.status} ${JSON.stringify(invited.body)}`)
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
  t.teardown(() => context.close())
  const page = await context.newPage()
  await page.goto(invited.body.url)
  await page.getByLabel("Password").fill(MEMBER_PASSWORD)
  await page.getByRole("button", { name: "Set password and sign in" }).click()
  await page.waitForURL(/\/app\/overview$/)
  return page
}

/** axe-core on the page as it stands: no serious or critical violation. */
export const expectAccessible = async (t: TestContext, page: Page, what: string) => {
  const { violations } = await new AxeBuilder({ page }).analyze()
  const grave = violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical")
  t.same(
    grave.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`),
    [],
    `${what}: no serious or critical axe-core violation`
  )
}

/** Nothing wider than the viewport. */
export const expectNoHorizontalScroll = async (t: TestContext, page: Page, what: string) => {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth
  }))
  t.ok(scrollWidth <= innerWidth, `${what}: no horizontal scroll at ${innerWidth} px (content ${scrollWidth} px wide)`)
}

/** Waits until the delivery of `jobId`'s event to the account's only subscription has an attempt recorded (read through the API). */
export const awaitRecordedAttempt = (server: RunningServer, key: string, jobId: string) =>
  until(`an attempt recorded for job ${jobId}`, async () => {
    const listed = await requestJson(server, "GET", "/api/v2/webhooks", { token: key })
    const [subscription] = listed.body.subscriptions as Array<{ id: string }>
    if (!subscription) return undefined
    const deliveries = await requestJson(server, "GET", `/api/v2/webhooks/${subscription.id}/deliveries`, { token: key })
    return (deliveries.body.deliveries as Array<{ jobId: string; attempts: Array<unknown> }>).some(
      (delivery) => delivery.jobId === jobId && delivery.attempts.length > 0
    )
  })
