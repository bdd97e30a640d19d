/**
 * The web channel in a real browser (contract section 12), on each database, one server and one
 * Chromium: a member writes a document in the editor, previews it (the PDF the page frames,
 * fetched from the frame's own URL and read with pdf.js; no unit used), publishes it after the page
 * said a unit would be used (usage 0 → 1 on a monthly account; the job's provenance says `web`),
 * downloads it; subscribes a webhook in the page and sees the publication's delivery with its
 * attempt; creates a custom template and writes with it. Every new page passes axe-core (no serious
 * or critical violation) and has no horizontal scroll at 375 px: on PGlite, as a page is the same
 * whichever database holds its data (checksPages in test/helpers/browser.ts).
 */
import type { Browser, Page } from "playwright-core"
import { readFile } from "node:fs/promises"
import t from "tap"
import { createAccount, requestJson, usageOf } from "../helpers/api.ts"
import {
  checkAccessibility,
  DESKTOP,
  launchBrowser,
  PHONE,
  scrollsSideways,
  signedInMember,
  unlessChecksPages
} from "../helpers/browser.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { pdfjsPageTexts } from "../helpers/pdf.ts"
import type { TestContext } from "../helpers/tap.ts"
import { verify } from "../helpers/webhook-receiver.ts"
import { awaitRecordedAttempt } from "../helpers/web-pages.ts"
import { startWebhookServer } from "../helpers/webhooks.ts"

// Line 5's raw HTML is dropped with a warning that names the line.
const MARKDOWN = "# Quarterly letter\n\nThe presses ran all night.\n\nA <u>late</u> edition.\n"

t.test("the web channel in the browser", async (t) => {
  const browser: Browser = await launchBrowser(t)
  await forEachDatabase(t, async (t: TestContext, database) => {
    const { server, receiver } = await startWebhookServer(t, database, { PRESSROOM_WEBHOOK_RETRY_SCHEDULE: "0,1,1" })
    const account = await createAccount(server, { plan: "monthly" })
    const page: Page = (await signedInMember(t, browser, server, { accountId: account.accountId })).page
    const jobOf = async (jobId: string) => (await requestJson(server, "GET", `/api/v2/jobs/${jobId}`, { token: account.key })).body.job

    let signingSecret = ""
    await t.test("a webhook subscription made in the page, its secret shown once", async (t) => {
      await page.goto(`${server.url}/app/webhooks`)
      await checkAccessibility(t, database, page, "webhooks")
      await page.getByLabel("Endpoint").fill(receiver.endpoint("/hooks"))
      await page.getByLabel("Description").fill("Accounting")
      await page.getByRole("button", { name: "Add subscription" }).click()
      const secret = await page.getByLabel("Signing secret").inputValue()
      t.match(secret, /^whsec_/)
      await page.goto(`${server.url}/app/webhooks`)
      t.equal(await page.getByLabel("Signing secret").count(), 0, "the secret is not shown again")
      t.ok(await page.getByRole("link", { name: receiver.endpoint("/hooks") }).isVisible(), "the subscription is listed")
      signingSecret = secret
    })

    let documentPath = ""
    let deliveriesPath = ""
    let publishedJobId = ""
    await t.test("write, preview (no unit), publish (one unit, channel web), download", async (t) => {
      await page.goto(`${server.url}/app/documents/new`)
      await checkAccessibility(t, database, page, "the editor")
      await page.getByLabel("Title").fill("Quarterly letter")
      await page.getByLabel("Markdown").fill(MARKDOWN)
      await page.getByRole("radio", { name: "Executive", exact: true }).check()
      await page.getByLabel("Locale").selectOption("en")
      t.equal((await usageOf(server, account.accountId)).used, 0)

      await page.getByRole("button", { name: "Preview" }).click()
      const frame = page.locator("iframe.pdf-frame")
      await frame.waitFor()
      const src = await frame.getAttribute("src")
      t.match(src, /^\/app\/artifacts\/[0-9a-f-]{36}\/preview$/)
      const previewed = await page.request.get(`${server.url}${src}`)
      t.equal(previewed.status(), 200)
      t.equal(previewed.headers()["content-type"], "application/pdf")
      t.match(previewed.headers()["content-security-policy"], /frame-ancestors 'self'/, "only the dashboard may frame it")
      t.match(previewed.headers()["content-disposition"], /^inline/)
      t.equal(previewed.headers()["cache-control"], "private, no-store", "no cache keeps the PDF, as the API's downloads")
      t.equal(previewed.headers()["x-content-type-options"], "nosniff")
      const previewText = (await pdfjsPageTexts(new Uint8Array(await previewed.body()))).join(" ")
      t.match(previewText, /Quarterly letter/, "the frame shows the document as typeset (pdf.js)")
      t.match(previewText, /The presses ran all night/)
      t.equal((await usageOf(server, account.accountId)).used, 0, "a preview uses no unit")
      const warned = page.locator(".source-lines > li", { hasText: "Line 5" })
      t.equal(await warned.locator(".line-text").textContent(), "A <u>late</u> edition.", "the warning is beside the line it names")
      t.match(await warned.locator(".line-warnings").textContent(), /the HTML element <u> is not rendered/)
      await checkAccessibility(t, database, page, "the editor with a preview")
      documentPath = new URL(page.url()).pathname.replace(/\/edit$/, "")

      const cost = page.locator("#publish-cost")
      t.match(await cost.textContent(), /Publishing uses 1 unit of your account \(500 left this month\)/, "said before it is used")
      t.equal(await page.getByRole("button", { name: "Publish" }).getAttribute("aria-describedby"), "publish-cost")
      await page.getByRole("button", { name: "Publish" }).click()
      await page.getByText("Published: one unit used").waitFor()
      t.equal((await usageOf(server, account.accountId)).used, 1, "usage 0 → 1")
      publishedJobId = new URL(page.url()).searchParams.get("job")!
      const job = await jobOf(publishedJobId)
      t.equal(job.purpose, "final")
      t.equal(job.provenance.channel, "web", "the job's provenance says web")
      t.equal(job.entitlement.source, "api_monthly")

      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download the PDF" }).click()])
      t.equal(download.suggestedFilename(), "document.pdf")
      const bytes = new Uint8Array(await readFile(await download.path()))
      t.match((await pdfjsPageTexts(bytes)).join(" "), /The presses ran all night/, "the download is the publication")

      await page.goto(`${server.url}${documentPath}`)
      await checkAccessibility(t, database, page, "the document")
      const published = page.locator(`#job-${publishedJobId}`)
      t.match(await published.textContent(), /Channel\s*web/, "the document page shows the job's channel")
      t.match(await published.textContent(), /succeeded/)
      await page.goto(`${server.url}/app/documents`)
      await checkAccessibility(t, database, page, "the documents list")
      t.ok(await page.getByRole("link", { name: "Quarterly letter" }).isVisible())
    })

    await t.test("the publication's delivery, with its attempt, in the page", async (t) => {
      const deliveries = await receiver.awaitAt("/hooks", 2)
      const delivery = deliveries.find((each) => each.json.data.job.id === publishedJobId)
      t.ok(delivery, "the receiver got the publication's event")
      t.equal(verify(signingSecret, delivery!).type, "job.succeeded")
      await awaitRecordedAttempt(server, account.key, publishedJobId)
      await page.goto(`${server.url}/app/webhooks`)
      await page.getByRole("link", { name: "Deliveries" }).first().click()
      await checkAccessibility(t, database, page, "the deliveries")
      deliveriesPath = new URL(page.url()).pathname
      const item = page.locator(".delivery", { hasText: publishedJobId })
      await item.waitFor()
      t.match(await item.textContent(), /delivered/)
      t.match(await item.locator("tbody tr").first().textContent(), /204/, "its attempt, answered 204")
    })

    await t.test("redeliver, rotate, disable", async (t) => {
      const before = receiver.at("/hooks").length
      await page.goto(`${server.url}${deliveriesPath}`)
      await page.locator(".delivery", { hasText: publishedJobId }).getByRole("button", { name: "Redeliver" }).click()
      const again = (await receiver.awaitAt("/hooks", before + 1)).at(-1)!
      t.equal(again.json.data.job.id, publishedJobId, "the publication's event is sent again")
      t.equal(verify(signingSecret, again).type, "job.succeeded")

      await page.goto(`${server.url}/app/webhooks`)
      await page.getByRole("button", { name: "Rotate secret" }).click()
      const rotated = await page.getByLabel("Signing secret").inputValue()
      t.match(rotated, /^whsec_/)
      t.not(rotated, signingSecret, "a new secret, shown once")
      await page.getByRole("button", { name: "Disable" }).click()
      await page.waitForURL(/\/app\/webhooks$/)
      t.match(await page.locator("tbody tr").first().textContent(), /disabled/)
      t.equal(await page.getByRole("button", { name: "Rotate secret" }).count(), 0, "a disabled subscription offers no rotation")
    })

    await t.test("a custom template created and used", async (t) => {
      await page.goto(`${server.url}/app/templates`)
      await checkAccessibility(t, database, page, "the templates")
      t.equal(await page.locator(".gallery img").count(), 57, "the 57 with their images")
      const image = await page.request.get(`${server.url}/app/gallery/executive.png`)
      t.equal(image.headers()["content-type"], "image/png")
      await page.getByLabel("Name").fill("House style")
      await page.getByLabel("Base template").selectOption("executive")
      await page.getByLabel("Body text colour").fill("#aa2200")
      await page.getByRole("button", { name: "Create template" }).click()
      await page.getByText("Custom template “House style” created.").waitFor()
      await page.getByRole("link", { name: "Use" }).click()
      await checkAccessibility(t, database, page, "the editor from a custom template")
      t.ok(await page.getByRole("radio", { name: "Executive", exact: true }).isChecked(), "its base template is chosen")
      t.equal(await page.getByLabel("Body text colour").inputValue(), "#aa2200", "its colour filled in")
      await page.getByLabel("Markdown").fill("# In house style\n")
      await page.getByRole("button", { name: "Preview" }).click()
      await page.locator("iframe.pdf-frame").waitFor()
      const job = await jobOf(new URL(page.url()).searchParams.get("job")!)
      t.equal(job.provenance.templateId, "executive")
      t.equal(job.provenance.channel, "web")
    })

    await t.test("every new page at 375 px: no horizontal scroll", { skip: unlessChecksPages(database) }, async (t) => {
      await page.setViewportSize(PHONE)
      for (const path of [
        "/app/documents",
        "/app/documents/new",
        `${documentPath}`,
        `${documentPath}/edit?job=${publishedJobId}`,
        "/app/webhooks",
        deliveriesPath,
        "/app/templates"
      ]) {
        await page.goto(`${server.url}${path}`)
        t.notOk(await scrollsSideways(page), `${path}: no horizontal scroll at 375 px`)
      }
      await page.setViewportSize(DESKTOP)
    })
  })
})
