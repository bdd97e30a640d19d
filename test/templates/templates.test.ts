/**
 * Custom templates over HTTP (contract section 8), against a real server on each database: create,
 * get, list and delete with every status they answer (201, 200, 400, 401, 403, 404, 415, 422),
 * owner scoping, and the v2 envelope with the response's correlation id.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import t from "tap"
import { FONT_FAMILIES } from "../../src/render/common/font-families.ts"
import { insertAccountWithKey, insertKey } from "../helpers/accounts.ts"
import { convert, type JsonResponse, requestJson } from "../helpers/api.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"
import { pageTexts, pdfChars, stripSubset } from "../helpers/pdf.ts"
import { startServer } from "../helpers/server.ts"
import type { TestContext } from "../helpers/tap.ts"
import { lostWords } from "../helpers/words.ts"

const CONTRACT_VERSION = "publishing.lifecycle.v1"

const validTemplate = {
  name: "Letterhead",
  baseTemplateId: "resume-ats",
  options: {
    pageNumbers: true,
    bodyTextColor: "#1A2B3C",
    headingTextColor: "#000000",
    creativeAccent: "rose",
    paper: "us-letter",
    fontFamily: FONT_FAMILIES[0]
  }
}

let keyCounter = 0
const freshKey = () => `test-key-${Date.now()}-${++keyCounter}`

t.test("custom templates", (t) =>
  forEachDatabase(t, async (t, database) => {
    const accounts = await runWith(
      database,
      Effect.orDie(
        Effect.gen(function* () {
          const owner = yield* insertAccountWithKey()
          // An owner with a template saved before its font family (Noto Naskh Arabic) left the bundled set.
          const arabicOwner = yield* insertAccountWithKey()
          const savedBefore = randomUUID()
          const sql = yield* SqlClient.SqlClient
          yield* sql`
        insert into custom_templates (id, account_id, name, base_template_id, options)
        values (${savedBefore}, ${arabicOwner.accountId}, 'Arabic letterhead', 'academic', ${JSON.stringify({ fontFamily: "Noto Naskh Arabic" })}::jsonb)`
          return {
            owner,
            arabicOwner,
            savedBefore,
            readOnlyKey: yield* insertKey(owner.accountId, ["documents.read"]),
            manageOnlyKey: yield* insertKey(owner.accountId, ["templates.manage"]),
            other: yield* insertAccountWithKey()
          }
        })
      )
    )
    const server = await startServer(t, database.env)
    const owner = accounts.owner.key

    const create = (body: unknown, options: { token?: string; key?: string | null; headers?: Record<string, string> } = {}) =>
      requestJson(server, "POST", "/api/v2/templates", {
        token: options.token ?? owner,
        body,
        headers: { ...(options.key === null ? {} : { "idempotency-key": options.key ?? freshKey() }), ...options.headers }
      })
    const remove = (id: string, options: { token?: string; key?: string | null } = {}) =>
      requestJson(server, "DELETE", `/api/v2/templates/${id}`, {
        token: options.token ?? owner,
        headers: options.key === null ? {} : { "idempotency-key": options.key ?? freshKey() }
      })
    const get = (id: string, token = owner) => requestJson(server, "GET", `/api/v2/templates/${id}`, { token })
    const list = (token = owner) => requestJson(server, "GET", "/api/v2/templates", { token })

    /** A v2 error envelope with `code` and `status`, quoting the response's correlation id. */
    const isError = (t: TestContext, response: JsonResponse, status: number, code: string, what: string) => {
      t.equal(response.status, status, `${what}: status ${status}`)
      t.equal(response.body?.contractVersion, CONTRACT_VERSION, `${what}: v2 envelope`)
      t.equal(response.body?.error?.code, code, `${what}: code ${code}`)
      t.equal(response.body?.error?.httpStatus, status, `${what}: httpStatus in the body`)
      t.equal(response.body?.error?.details?.correlationId, response.headers.get("x-correlation-id"), `${what}: correlation id`)
    }

    await t.test("create answers 201 with the template and its Location", async (t) => {
      const created = await create(validTemplate)
      t.equal(created.status, 201)
      t.equal(created.body.contractVersion, CONTRACT_VERSION)
      const template = created.body.template
      t.match(template.id, /^[0-9a-f-]{36}$/)
      t.same(
        { name: template.name, baseTemplateId: template.baseTemplateId, options: template.options, deletedAt: template.deletedAt },
        { ...validTemplate, deletedAt: null }
      )
      t.ok(!Number.isNaN(Date.parse(template.createdAt)) && template.createdAt.endsWith("Z"), "createdAt is an ISO 8601 UTC timestamp")
      t.equal(created.headers.get("location"), `/api/v2/templates/${template.id}`)
      t.match(created.headers.get("x-correlation-id"), /^[0-9a-f-]{36}$/)

      const fetched = await get(template.id)
      t.equal(fetched.status, 200)
      t.same(fetched.body, { contractVersion: CONTRACT_VERSION, template })

      const minimal = await create({ name: "Plain", baseTemplateId: "clean", options: {} })
      t.equal(minimal.status, 201, "no overrides at all is a valid template")
      const listed = await list()
      t.equal(listed.status, 200)
      t.equal(listed.body.contractVersion, CONTRACT_VERSION)
      t.same(
        listed.body.templates.map((x: { id: string }) => x.id),
        [minimal.body.template.id, template.id],
        "newest first"
      )
    })

    await t.test("401 without a valid key", async (t) => {
      isError(t, await requestJson(server, "GET", "/api/v2/templates"), 401, "unauthorized", "no key")
      isError(t, await list(`pk_live_${"0".repeat(32)}`), 401, "unauthorized", "unknown key")
      isError(t, await create(validTemplate, { token: "not-a-key" }), 401, "unauthorized", "malformed key on create")
    })

    await t.test("403 for a key without the operation's scope", async (t) => {
      const created = await create(validTemplate)
      isError(t, await create(validTemplate, { token: accounts.readOnlyKey }), 403, "forbidden", "create with documents.read only")
      isError(
        t,
        await remove(created.body.template.id, { token: accounts.readOnlyKey }),
        403,
        "forbidden",
        "delete with documents.read only"
      )
      isError(t, await list(accounts.manageOnlyKey), 403, "forbidden", "list with templates.manage only")
      isError(t, await get(created.body.template.id, accounts.manageOnlyKey), 403, "forbidden", "get with templates.manage only")
      t.equal((await get(created.body.template.id, accounts.readOnlyKey)).status, 200, "documents.read reads")
      t.equal((await create(validTemplate, { token: accounts.manageOnlyKey })).status, 201, "templates.manage creates")
    })

    await t.test("400 for a malformed request", async (t) => {
      const before = (await list()).body.templates.length
      const cases: Array<[string, unknown]> = [
        ["a body that is an array", [validTemplate]],
        ["a missing name", { baseTemplateId: "clean", options: {} }],
        ["a missing options", { name: "x", baseTemplateId: "clean" }],
        ["an empty name", { ...validTemplate, name: "" }],
        ["a name of 161 characters", { ...validTemplate, name: "n".repeat(161) }],
        ["a name that is a number", { ...validTemplate, name: 7 }],
        ["pageNumbers that is a string", { ...validTemplate, options: { pageNumbers: "yes" } }],
        ["paper that is a number", { ...validTemplate, options: { paper: 4 } }],
        ["an unknown property", { ...validTemplate, colour: "red" }],
        ["an unknown option", { ...validTemplate, options: { margins: 2 } }]
      ]
      for (const [what, body] of cases) isError(t, await create(body), 400, "invalid_request", what)
      isError(t, await create(validTemplate, { key: null }), 400, "invalid_request", "a missing Idempotency-Key")
      t.match((await create(validTemplate, { key: null })).body.error.message, /idempotency-key/i, "the message names the header")
      isError(t, await create(validTemplate, { key: "short" }), 400, "invalid_request", "an Idempotency-Key of 5 characters")
      isError(t, await create(validTemplate, { key: "k".repeat(201) }), 400, "invalid_request", "an Idempotency-Key of 201 characters")
      isError(
        t,
        await create(validTemplate, { key: "tab\there-key" }),
        400,
        "invalid_request",
        "an Idempotency-Key with a control character"
      )
      const malformed = await fetch(`${server.url}/api/v2/templates`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner}`, "content-type": "application/json", "idempotency-key": freshKey() },
        body: '{"name": '
      })
      t.equal(malformed.status, 400, "malformed JSON")
      isError(t, await get("not-a-uuid"), 400, "invalid_request", "a path that is not a uuid (get)")
      isError(t, await remove("not-a-uuid"), 400, "invalid_request", "a path that is not a uuid (delete)")
      isError(t, await remove(randomUUID(), { key: null }), 400, "invalid_request", "delete without Idempotency-Key")
      t.equal((await list()).body.templates.length, before, "the refused requests created nothing")
    })

    await t.test("415 for a body that is not JSON", async (t) => {
      isError(t, await create(validTemplate, { headers: { "content-type": "text/plain" } }), 415, "invalid_request", "text/plain")
      t.equal(
        (await create(validTemplate, { headers: { "content-type": "application/json; charset=utf-8" } })).status,
        201,
        "charset is accepted"
      )
    })

    await t.test("422 for content that cannot be accepted", async (t) => {
      const cases: Array<[string, unknown, RegExp]> = [
        ["an unknown base template", { ...validTemplate, baseTemplateId: "nonexistent" }, /baseTemplateId/],
        ["a v1 name that is not in the catalog", { ...validTemplate, baseTemplateId: "Clean" }, /baseTemplateId/],
        ["a colour that is not #rrggbb", { ...validTemplate, options: { bodyTextColor: "red" } }, /bodyTextColor/],
        ["a heading colour of 3 digits", { ...validTemplate, options: { headingTextColor: "#abc" } }, /headingTextColor/],
        ["an unknown accent", { ...validTemplate, options: { creativeAccent: "teal" } }, /creativeAccent/],
        ["paper a3", { ...validTemplate, options: { paper: "a3" } }, /paper/],
        ["a font family not bundled", { ...validTemplate, options: { fontFamily: "Comic Sans MS" } }, /fontFamily/]
      ]
      for (const [what, body, field] of cases) {
        const response = await create(body)
        isError(t, response, 422, "invalid_request", what)
        t.match(response.body.error.message, field, `${what}: the message names the field`)
      }
    })

    await t.test("a template saved with a retired font family renders in the face that replaced it", async (t) => {
      const arabicOwner = accounts.arabicOwner.key
      const saved = await get(accounts.savedBefore, arabicOwner)
      t.equal(saved.status, 200)
      t.equal(saved.body.template.options.fontFamily, "Amiri", "it reads back with the family it renders in")
      const markdown = "# تقرير ربع سنوي\n\nارتفعت المبيعات في الربع الثالث، وقرر مجلس الإدارة توسيع الفريق.\n"
      const response = await convert(server, arabicOwner, { markdown, locale: "ar", customTemplateId: accounts.savedBefore })
      t.equal(response.status, 200, "the conversion succeeds")
      const pdf = response.pdf!
      t.same(lostWords(markdown, pageTexts(pdf).join("\n"), "ar"), [], "every Arabic word reads back")
      const arabicFonts = new Set(
        pdfChars(pdf)
          .filter((c) => /\p{Script=Arabic}/u.test(c.c))
          .map((c) => stripSubset(c.font))
      )
      t.ok(arabicFonts.size > 0 && [...arabicFonts].every((font) => font.startsWith("Amiri-")), "set in Amiri", { found: [...arabicFonts] })
      const created = await create({ ...validTemplate, options: { fontFamily: "Noto Sans Arabic" } }, { token: arabicOwner })
      t.equal(created.status, 201, "a client may still send the old name")
      t.equal(created.body.template.options.fontFamily, "Amiri", "and it is saved as the family that replaced it")
    })

    await t.test("another owner's template, or a deleted one, is not found", async (t) => {
      const created = await create(validTemplate)
      const id = created.body.template.id
      isError(t, await get(id, accounts.other.key), 404, "not_found", "get by another owner")
      isError(t, await remove(id, { token: accounts.other.key }), 404, "not_found", "delete by another owner")
      t.notOk(
        (await list(accounts.other.key)).body.templates.some((x: { id: string }) => x.id === id),
        "not in another owner's list"
      )
      isError(t, await get(randomUUID()), 404, "not_found", "an id that never existed")

      const deleted = await remove(id)
      t.equal(deleted.status, 200)
      t.equal(deleted.body.contractVersion, CONTRACT_VERSION)
      t.equal(deleted.body.template.id, id)
      t.ok(!Number.isNaN(Date.parse(deleted.body.template.deletedAt)), "the deleted template carries deletedAt")
      isError(t, await get(id), 404, "not_found", "get after delete")
      isError(t, await remove(id), 404, "not_found", "delete again with a new key")
      t.notOk(
        (await list()).body.templates.some((x: { id: string }) => x.id === id),
        "not listed after delete"
      )
    })
  })
)
