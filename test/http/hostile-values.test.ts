/**
 * Valid JSON whose strings a database cannot hold as they are, and filenames that would mislead
 * whoever saves the PDF, through a real server on each database. Markdown is read as CommonMark
 * reads it: a NUL, and an unpaired surrogate (which has no UTF-8 form), become U+FFFD, and that
 * text is what the job stores, hashes and renders. A name or filename with either is 422, as are
 * filenames that are only dots or hold control or bidirectional formatting characters. Characters
 * outside the Basic Multilingual Plane (a well-formed surrogate pair, such as an emoji) are fine
 * everywhere.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { createHash, randomUUID } from "node:crypto"
import t from "tap"
import { convert, createAccount, type JsonResponse, requestJson } from "../helpers/api.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"
import { pdfText } from "../helpers/pdf.ts"
import { ADMIN_TOKEN, startServer } from "../helpers/server.ts"
import type { TestContext } from "../helpers/tap.ts"

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

/** A 422 `invalid_request` whose message starts with the field to blame, with the response's correlation id. */
const isUnprocessable = (
  t: TestContext,
  response: { status: number; headers: Headers; body?: any; error?: any },
  field: string,
  what: string
) => {
  const body = response.body ?? response.error
  t.equal(response.status, 422, `${what}: 422`)
  t.equal(body?.error?.code, "invalid_request", `${what}: invalid_request`)
  t.match(body?.error?.message, new RegExp(`^${field.replace(".", "\\.")}: `), `${what}: the message names ${field}`)
  t.equal(body?.error?.details?.correlationId, response.headers.get("x-correlation-id"), `${what}: correlation id`)
}

const healthy = async (t: TestContext, server: { url: string }) =>
  t.equal((await fetch(`${server.url}/healthz`)).status, 200, "the server still answers")

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, {
    ...database.env,
    PRESSROOM_RATE_LIMIT_CONVERT_PER_MINUTE: "1000",
    PRESSROOM_RATE_LIMIT_WRITE_PER_MINUTE: "1000"
  })
  const owner = await createAccount(server)
  const converted: Array<{ sent: string; stored: string }> = []

  await t.test("markdown with a NUL or an unpaired surrogate renders, read as U+FFFD", async (t) => {
    for (const [what, markdown, stored] of [
      ["a NUL", "Quarterly\u0000ledger balanced", "Quarterly\ufffdledger balanced"],
      ["an unpaired high surrogate", "Annual\ud800review approved", "Annual\ufffdreview approved"],
      ["an unpaired low surrogate", "Monthly\udc00summary filed", "Monthly\ufffdsummary filed"]
    ] as const) {
      const response = await convert(server, owner.key, { markdown })
      t.equal(response.status, 200, `${what}: 200`)
      if (response.pdf) {
        const text = pdfText(response.pdf)
        for (const word of stored.split(/[\s\ufffd]/)) t.match(text, word, `${what}: '${word}' is in the PDF`)
      }
      converted.push({ sent: markdown, stored })
    }
    await healthy(t, server)
  })

  await t.test("an emoji (a surrogate pair) stays valid in markdown, filename and names", async (t) => {
    const response = await convert(server, owner.key, { markdown: "Launch day 🚀 went well", filename: "Launch 🚀.pdf" })
    t.equal(response.status, 200)
    t.match(response.headers.get("content-disposition"), /filename\*=UTF-8''Launch%20%F0%9F%9A%80\.pdf$/)
    const template = await requestJson(server, "POST", "/api/v2/templates", {
      token: owner.key,
      headers: { "idempotency-key": `emoji-${randomUUID()}` },
      body: { name: "Rocket 🚀", baseTemplateId: "clean", options: {} }
    })
    t.equal(template.status, 201)
    t.equal(template.body.template.name, "Rocket 🚀")
    const account = await requestJson(server, "POST", "/admin/v1/accounts", {
      token: ADMIN_TOKEN,
      body: { name: "Rocket Ltd 🚀", plan: "free" }
    })
    t.equal(account.status, 201)
    t.equal(account.body.account.name, "Rocket Ltd 🚀")
  })

  await t.test("unusable filenames are 422", async (t) => {
    const filenames: Array<[string, string]> = [
      ["a NUL", "report\u0000.pdf"],
      ["an unpaired high surrogate", "report\ud800.pdf"],
      ["an unpaired low surrogate", "report\udfff.pdf"],
      ["a dot", "."],
      ["two dots", ".."],
      ["only dots", "..."],
      ["a C1 control (U+0085)", "report\u0085.pdf"],
      ["a C1 control (U+009F)", "report\u009f.pdf"],
      ["a right-to-left override (U+202E)", "a\u202eFDP.exe"],
      ["a left-to-right embedding (U+202A)", "a\u202a.pdf"],
      ["a first-strong isolate (U+2068)", "a\u2068.pdf"],
      ["a pop directional isolate (U+2069)", "a\u2069.pdf"],
      ["a left-to-right mark (U+200E)", "a\u200e.pdf"],
      ["a right-to-left mark (U+200F)", "a\u200f.pdf"],
      ["an Arabic letter mark (U+061C)", "a\u061c.pdf"]
    ]
    for (const [what, filename] of filenames) {
      isUnprocessable(t, await convert(server, owner.key, { markdown: "x", filename }), "filename", what)
    }
    await healthy(t, server)
  })

  await t.test("a template name with a NUL or an unpaired surrogate is 422", async (t) => {
    for (const [what, name] of [
      ["a NUL", "Letter\u0000head"],
      ["an unpaired high surrogate", "Letter\ud83dhead"],
      ["an unpaired low surrogate", "Letter\ude80head"]
    ] as const) {
      const response = await requestJson(server, "POST", "/api/v2/templates", {
        token: owner.key,
        headers: { "idempotency-key": `hostile-${randomUUID()}` },
        body: { name, baseTemplateId: "clean", options: {} }
      })
      isUnprocessable(t, response, "name", what)
      t.equal(response.body?.contractVersion, "publishing.lifecycle.v1", `${what}: the v2 envelope`)
    }
    await healthy(t, server)
  })

  await t.test("a base template id with a NUL is 422, and its saved outcome replays", async (t) => {
    const key = `hostile-${randomUUID()}`
    const send = () =>
      requestJson(server, "POST", "/api/v2/templates", {
        token: owner.key,
        headers: { "idempotency-key": key },
        body: { name: "Letterhead", baseTemplateId: "clean\u0000\ud800", options: {} }
      })
    isUnprocessable(t, await send(), "baseTemplateId", "first request")
    const replayed = await send()
    isUnprocessable(t, replayed, "baseTemplateId", "replay")
    t.equal(replayed.headers.get("idempotency-replayed"), "true")
  })

  await t.test("an account name with a NUL or an unpaired surrogate is 422", async (t) => {
    for (const [what, name] of [
      ["a NUL", "Acme\u0000Ltd"],
      ["an unpaired high surrogate", "Acme\ud800Ltd"],
      ["an unpaired low surrogate", "Acme\udc00Ltd"]
    ] as const) {
      const response: JsonResponse = await requestJson(server, "POST", "/admin/v1/accounts", {
        token: ADMIN_TOKEN,
        body: { name, plan: "free" }
      })
      isUnprocessable(t, response, "name", what)
    }
    await healthy(t, server)
  })

  await t.test("the job stores, and hashes as sourceSha256, the markdown as read", async (t) => {
    // The embedded database is the server's own files: read them once it has stopped.
    await server.stop()
    const jobs = await runWith(
      database,
      Effect.orDie(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ markdown: string; sourceSha256: string }>`
            select render_request->>'markdown' as markdown, provenance->>'sourceSha256' as "sourceSha256"
            from jobs where account_id = ${owner.accountId} order by accepted_at`
        )
      )
    )
    for (const { sent, stored } of converted) {
      const job = jobs.find((row) => row.markdown === stored)
      t.ok(job, `the job of ${JSON.stringify(sent)} stores ${JSON.stringify(stored)}`)
      t.equal(job?.sourceSha256, sha256(stored), "its sourceSha256 is the SHA-256 of that text")
    }
  })
})
