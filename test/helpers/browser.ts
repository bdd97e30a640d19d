/**
 * The dashboard in a real browser: Debian's Chromium driven by playwright-core (Playwright cannot
 * download its own browsers here), a page signed in as a fresh member of a fresh account, and
 * axe-core's check. One browser per test file: launch it once, make a context per member.
 */
import AxeBuilder from "@axe-core/playwright"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { randomUUID } from "node:crypto"
import { requestJson } from "./api.ts"
import { ADMIN_TOKEN, type RunningServer } from "./server.ts"
import type { DatabaseKind } from "./database.ts"
import type { TestContext } from "./tap.ts"

export const CHROMIUM = process.env.PRESSROOM_TEST_CHROMIUM ?? "/usr/bin/chromium"

/** Debian's Chromium, headless, kept off the network this machine does not have (no background connections). */
export const startChromium = (): Promise<Browser> =>
  chromium.launch({
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

export const launchBrowser = async (t: TestContext): Promise<Browser> => {
  const browser = await startChromium()
  t.teardown(() => browser.close())
  return browser
}

export const DESKTOP = { width: 1280, height: 900 } as const
export const PHONE = { width: 375, height: 740 } as const

/** A new account (monthly plan) through the admin API; its id. */
export const createAccountOnly = async (server: Pick<RunningServer, "url">, name = "Dashboard test account"): Promise<string> => {
  const response = await requestJson(server, "POST", "/admin/v1/accounts", { token: ADMIN_TOKEN, body: { name, plan: "monthly" } })
  if (response.status !== 201) throw new Error(`account creation failed: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body.account.id as string
}

/** An invitation of `email` into `accountId`; its URL. */
export const invite = async (server: Pick<RunningServer, "url">, accountId: string, email: string): Promise<string> => {
  const response = await requestJson(server, "POST", `/admin/v1/accounts/${accountId}/invitations`, { token: ADMIN_TOKEN, body: { email } })
  if (response.status !== 201) throw new Error(`invitation failed: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body.url as string
}

export interface SignedInMember {
  readonly page: Page
  readonly context: BrowserContext
  readonly accountId: string
  readonly email: string
  readonly password: string
}

/**
 * A page signed in as a fresh member of a fresh account (or of `accountId`): invited through the
 * admin API, password chosen on the invitation page as a person would. The context closes with the test.
 */
export const signedInMember = async (
  t: TestContext,
  browser: Browser,
  server: Pick<RunningServer, "url">,
  options: { readonly viewport?: { width: number; height: number }; readonly accountId?: string } = {}
): Promise<SignedInMember> => {
  const accountId = options.accountId ?? (await createAccountOnly(server))
  const email = `member-${randomUUID()}@example.com`
  const password = `password-${randomUUID()}`
  const url = await invite(server, accountId, email)
  const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP })
  t.teardown(() => context.close())
  const page = await context.newPage()
  await page.goto(url)
  await page.getByLabel("Password").fill(password)
  await page.getByRole("button", { name: "Set password and sign in" }).click()
  await page.waitForURL("**/app/overview")
  return { page, context, accountId, email, password }
}

/** Fails the test for each serious or critical axe-core violation on the page as it is now. */
/**
 * Whether a file checks how its pages are drawn and reached (axe-core, 375 px, the keyboard) on
 * `database`: PGlite only. A page is the same whichever database holds its data, and each check
 * takes seconds of Chromium; the journeys that write and read the data run on both.
 */
export const checksPages = (database: { readonly kind: DatabaseKind }): boolean => database.kind === "pglite"

/** tap's `skip` for a subtest that only checks how pages are drawn or reached: false on the database that checks them. */
export const unlessChecksPages = (database: { readonly kind: DatabaseKind }): false | string =>
  !checksPages(database) && "how pages are drawn and reached is checked on PGlite"

/** axe-core on `page` (on the database that checks pages): no serious or critical violation. */
export const checkAccessibility = async (
  t: TestContext,
  database: { readonly kind: DatabaseKind },
  page: Page,
  what: string
): Promise<void> => {
  if (!checksPages(database)) return
  const results = await new AxeBuilder({ page }).analyze()
  const severe = results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`)
  t.same(severe, [], `${what}: no serious or critical axe-core violation`)
}

/** Whether the page is wider than its viewport (a horizontal scroll bar). */
export const scrollsSideways = (page: Page): Promise<boolean> =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)
