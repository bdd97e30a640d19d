/**
 * `POST /api/v1/convert` as a client meets it: every status of the v1 table with its body, on
 * each database. Units and concurrency are in units.test.ts.
 */
import t from "tap"
import { randomUUID } from "node:crypto"
import { convert, createAccount, requestJson, usageOf } from "../helpers/api.ts"
import { pdfText } from "../helpers/pdf.ts"
import { forEachSharedServer } from "../helpers/shared-server.ts"
import type { TestContext } from "../helpers/tap.ts"

const expectError = (t: TestContext, response: Awaited<ReturnType<typeof convert>>, status: number, code: string, name: string) => {
  t.equal(response.status, status, `${name}: status ${status}`)
  t.equal(response.error?.error.code, code, `${name}: code ${code}`)
  t.equal(response.error?.error.httpStatus, status, `${name}: httpStatus in the body`)
  t.notOk("contractVersion" in (response.error ?? {}), `${name}: v1 body has no contractVersion`)
  t.equal(
    response.error?.error.details?.correlationId,
    response.headers.get("x-correlation-id"),
    `${name}: correlation id matches the header`
  )
  t.notMatch(JSON.stringify(response.error), /at .*\.ts|node_modules|\/work\//, `${name}: no stack or path in the body`)
}

await forEachSharedServer(t, async (t, server) => {
  const owner = await createAccount(server)

  await t.test("200 with the PDF", async (t) => {
    const response = await convert(server, owner.key, { markdown: "# Quarterly report\n\nRevenue grew in *every* region." })
    t.equal(response.status, 200)
    t.equal(response.headers.get("content-type"), "application/pdf")
    t.equal(response.headers.get("content-disposition"), 'attachment; filename="document.pdf"')
    t.equal(response.headers.get("cache-control"), "private, no-store", "no cache keeps the PDF")
    t.equal(response.headers.get("x-content-type-options"), "nosniff")
    t.match(response.headers.get("x-correlation-id"), /^[0-9a-f-]{36}$/)
    t.match(pdfText(response.pdf!), /Quarterly report.*Revenue grew in every region/)

    const named = await convert(server, owner.key, {
      markdown: "Dear reader,\n\nThank you.",
      templateId: "coverletter",
      locale: "fr",
      filename: "Lettre d'été.pdf",
      options: { pageNumbers: true, bodyTextColor: "#112233", headingTextColor: "#445566" }
    })
    t.equal(named.status, 200)
    t.match(
      named.headers.get("content-disposition"),
      /^attachment; filename="Lettre d'\?t\?\.pdf"; filename\*=UTF-8''Lettre%20d%27%C3%A9t%C3%A9\.pdf$/
    )

    const again = await convert(server, owner.key, { markdown: "# Quarterly report\n\nRevenue grew in *every* region." })
    t.same(again.pdf, response.pdf, "the same request gives the same bytes")
    t.equal((await usageOf(server, owner.accountId)).used, 3, "one unit per successful conversion")
  })

  await t.test("400 for a malformed body", async (t) => {
    const cases: Array<[string, unknown, string?]> = [
      ["not JSON", undefined, "{markdown:"],
      ["an array", [{ markdown: "x" }]],
      ["a string", "markdown"],
      ["markdown missing", { templateId: "clean" }],
      ["markdown not a string", { markdown: 42 }],
      ["markdown over 200,000 characters", { markdown: "a".repeat(200_001) }],
      ["an unknown property", { markdown: "x", colour: "red" }],
      ["an option of the wrong type", { markdown: "x", options: { pageNumbers: "yes" } }],
      ["an unknown option", { markdown: "x", options: { margins: 2 } }],
      ["customTemplateId not a uuid", { markdown: "x", customTemplateId: "abc" }]
    ]
    for (const [name, body, raw] of cases) {
      expectError(t, await convert(server, owner.key, body, raw ? { rawBody: raw } : {}), 400, "invalid_request", name)
    }
  })

  await t.test("401 without a usable key, 403 without the scope", async (t) => {
    expectError(t, await convert(server, undefined, { markdown: "x" }), 401, "unauthorized", "missing key")
    expectError(t, await convert(server, "pk_live_nothex", { markdown: "x" }), 401, "unauthorized", "malformed key")
    expectError(t, await convert(server, `pk_live_${"0".repeat(32)}`, { markdown: "x" }), 401, "unauthorized", "unknown key")
    const reader = await createAccount(server, { scopes: ["documents.read", "documents.preview"] })
    expectError(t, await convert(server, reader.key, { markdown: "x" }), 403, "forbidden", "key without documents.render")
  })

  await t.test("402 when the entitlement is exhausted", async (t) => {
    const broke = await createAccount(server, { plan: "credits" })
    expectError(t, await convert(server, broke.key, { markdown: "x" }), 402, "quota_exhausted", "credits plan without packs")
    const usage = await usageOf(server, broke.accountId)
    t.equal(usage.used + usage.reserved, 0, "nothing reserved or used")
  })

  await t.test("404 for a custom template that is unknown or another owner's", async (t) => {
    expectError(
      t,
      await convert(server, owner.key, { markdown: "x", customTemplateId: randomUUID() }),
      404,
      "not_found",
      "unknown custom template"
    )
    const other = await createAccount(server)
    const created = await requestJson(server, "POST", "/api/v2/templates", {
      token: other.key,
      headers: { "idempotency-key": `tmpl-${randomUUID()}` },
      body: { name: "Other's letterhead", baseTemplateId: "coverletter", options: {} }
    })
    t.equal(created.status, 201, "the other owner created a template")
    const theirs = created.body.template.id as string
    expectError(
      t,
      await convert(server, owner.key, { markdown: "x", customTemplateId: theirs }),
      404,
      "not_found",
      "another owner's custom template"
    )
    const used = await convert(server, other.key, { markdown: "Signed, the owner", customTemplateId: theirs })
    t.equal(used.status, 200, "its owner converts with it")
  })

  await t.test("413 and 415", async (t) => {
    const big = JSON.stringify({ markdown: "x", padding: "y".repeat(4 * 1024 * 1024) })
    expectError(t, await convert(server, owner.key, undefined, { rawBody: big }), 413, "invalid_request", "body over 4 MiB")
    expectError(t, await convert(server, owner.key, { markdown: "x" }, { contentType: "text/plain" }), 415, "invalid_request", "text/plain")
    t.equal(
      (await convert(server, owner.key, { markdown: "x" }, { contentType: "application/json; charset=utf-8" })).status,
      200,
      "charset parameter accepted"
    )
  })

  await t.test("422 for content that cannot be accepted", async (t) => {
    const cases: Array<[string, unknown]> = [
      ["unknown template", { markdown: "x", templateId: "fancy" }],
      ["template outside the v1 set", { markdown: "x", templateId: "resume-ats" }],
      ["unknown locale", { markdown: "x", locale: "tlh" }],
      ["colour not #rrggbb", { markdown: "x", options: { bodyTextColor: "red" } }],
      ["unknown accent", { markdown: "x", options: { creativeAccent: "neon" } }],
      ["filename with a path", { markdown: "x", filename: "../etc/passwd" }],
      ["empty filename", { markdown: "x", filename: "" }],
      ["empty markdown", { markdown: "" }]
    ]
    const before = await usageOf(server, owner.accountId)
    for (const [name, body] of cases) expectError(t, await convert(server, owner.key, body), 422, "invalid_request", name)
    t.same(await usageOf(server, owner.accountId), before, "refused conversions reserve and use nothing")

    // A catalog template that v1 does not offer is named as v2's, with the seven v1 offers.
    const v2Only = await convert(server, owner.key, { markdown: "x", templateId: "resume-ats" })
    t.equal(v2Only.status, 422)
    t.equal(
      v2Only.error?.error.message,
      "templateId: 'resume-ats' is a v2 template; v1 offers clean, executive, resume, coverletter, academic, legal, creative (every other template is v2's: /api/v2/documents)"
    )
    const unknown = await convert(server, owner.key, { markdown: "x", templateId: "fancy" })
    t.match(unknown.error?.error.message, /^templateId: unknown template 'fancy'; v1 offers clean, executive, /)
  })

  await t.test("unknown routes and methods", async (t) => {
    const missing = await requestJson(server, "GET", "/api/v1/nothing")
    t.equal(missing.status, 404)
    t.equal(missing.body.error.code, "not_found")
    t.equal(missing.body.error.details.correlationId, missing.headers.get("x-correlation-id"))
    const wrongMethod = await requestJson(server, "GET", "/api/v1/convert")
    t.equal(wrongMethod.status, 405)
    t.equal(wrongMethod.headers.get("allow"), "POST")
    t.equal(wrongMethod.body.error.code, "invalid_request")
  })
})
