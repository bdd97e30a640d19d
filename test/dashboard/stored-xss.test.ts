/**
 * Stored cross-site scripting refused (contract section 12), on each database, one server and one
 * Chromium: a title, Markdown, a filename, a webhook's description and a webhook endpoint's answer,
 * each carrying `<script>`, `<img onerror>` and `javascript:`, are shown as text on every page that
 * shows them. The test listens for dialogs, sets a trap every payload would spring, and looks for
 * any script, event handler or `javascript:` link the pages would have taken from them.
 */
import type { Page } from "playwright-core"
import t from "tap"
import { createAccount } from "../helpers/api.ts"
import { launchBrowser, signedInMember } from "../helpers/browser.ts"
import { forEachDatabase } from "../helpers/database.ts"
import type { TestContext } from "../helpers/tap.ts"
import { awaitRecordedAttempt } from "../helpers/web-pages.ts"
import { startWebhookServer } from "../helpers/webhooks.ts"

/** Each would set `window.pwned`, or open a dialog, if a page ran it. */
const SCRIPT = `<script>window.pwned=1;alert("script")</script>`
const IMAGE = `<img src=x onerror="window.pwned=2;alert('img')">`
const LINK = "javascript:alert('link')"
const TITLE = `${SCRIPT}${IMAGE}`
const MARKDOWN = `# Heading ${IMAGE}\n\n${SCRIPT}\n\n[click me](${LINK})\n`
const FILENAME = `${IMAGE}.pdf`
const ANSWER = `${SCRIPT}${IMAGE}<a href="${LINK}">answer</a>`

t.test("what a user wrote is shown as text, never as HTML", async (t) => {
  const browser = await launchBrowser(t)
  await forEachDatabase(t, async (t: TestContext, database) => {
    const { server, receiver } = await startWebhookServer(t, database, { PRESSROOM_WEBHOOK_RETRY_SCHEDULE: "0" })
    receiver.answer("/evil", () => ({ status: 500, headers: { "content-type": "text/html" }, body: ANSWER }))
    const account = await createAccount(server, { plan: "monthly" })
    const page: Page = (await signedInMember(t, browser, server, { accountId: account.accountId })).page
    const dialogs: Array<string> = []
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })

    /** Nothing of the payloads ran or became markup on the page. */
    const expectInert = async (t: TestContext, what: string) => {
      const found = await page.evaluate(() => ({
        pwned: (window as { pwned?: number }).pwned ?? null,
        scripts: Array.from(document.scripts).map((script) => script.getAttribute("src")),
        handlers: document.querySelectorAll("[onerror], [onload], [onclick]").length,
        javascriptLinks: document.querySelectorAll('a[href^="javascript:" i], iframe[src^="javascript:" i]').length
      }))
      t.same(
        found,
        { pwned: null, scripts: ["/app/assets/app.js"], handlers: 0, javascriptLinks: 0 },
        `${what}: no payload ran or became markup`
      )
      t.same(dialogs, [], `${what}: no dialog opened`)
    }

    await page.goto(`${server.url}/app/documents/new`)
    await page.getByLabel("Title").fill(TITLE)
    await page.getByLabel("Markdown").fill(MARKDOWN)
    await page.getByLabel("Filename").fill(FILENAME)
    await page.getByRole("button", { name: "Preview" }).click()
    await page.locator("iframe.pdf-frame").waitFor()
    await expectInert(t, "the editor")
    t.equal(await page.getByLabel("Markdown").inputValue(), MARKDOWN, "the Markdown is the textarea's text")
    t.ok(await page.getByRole("heading", { name: `Edit: ${TITLE}` }).isVisible(), "the title as text in the heading")
    const documentPath = new URL(page.url()).pathname.replace(/\/edit$/, "")

    await page.goto(`${server.url}${documentPath}`)
    await expectInert(t, "the document")
    t.ok(await page.getByRole("heading", { name: TITLE, level: 1 }).isVisible(), "the title as text")
    t.ok(await page.getByRole("cell", { name: FILENAME, exact: true }).isVisible(), "the filename as text")

    await page.goto(`${server.url}/app/documents`)
    await expectInert(t, "the documents list")
    t.ok(await page.getByRole("link", { name: TITLE }).isVisible(), "the title as a link's text")

    await page.goto(`${server.url}/app/webhooks`)
    await page.getByLabel("Endpoint").fill(receiver.endpoint("/evil"))
    await page.getByLabel("Description").fill(TITLE)
    await page.getByRole("button", { name: "Add subscription" }).click()
    await page.getByRole("cell", { name: TITLE, exact: true }).waitFor()
    await expectInert(t, "the webhooks")
    t.ok(await page.getByRole("cell", { name: TITLE, exact: true }).isVisible(), "the description as text")

    // A publication's event reaches the endpoint, which answers with markup.
    await page.goto(`${server.url}${documentPath}/edit`)
    await page.getByRole("button", { name: "Publish" }).click()
    await page.getByText("Published: one unit used").waitFor()
    await awaitRecordedAttempt(server, account.key, new URL(page.url()).searchParams.get("job")!)
    await page.goto(`${server.url}/app/webhooks`)
    await page.getByRole("link", { name: "Deliveries" }).click()
    const answer = page.locator("code.excerpt", { hasText: "window.pwned" })
    // The click navigates: read the page once the deliveries are shown, not the one being left.
    await answer.first().waitFor()
    await expectInert(t, "the deliveries")
    t.match(await answer.first().textContent(), SCRIPT, "the endpoint's answer as text")
  })
})
