/**
 * Any JSON body, on every endpoint that takes one (v1, v2 documents, revisions, previews and
 * publications, custom templates, webhook subscriptions, admin), through a real server: bodies
 * of the right shape whose strings come from every class of code point (controls with NUL, C1,
 * bidirectional controls, unpaired surrogates, pairs, noncharacters, combining marks, right-to-left
 * letters, Markdown syntax, very long runs), random JSON in place of fields, unknown keys, values
 * nested a few hundred deep, and bodies up to about 1 MiB. No answer is a 5xx; every answer has its
 * correlation id, every error its envelope; and the server answers the next request.
 *
 * Bodies are sent as a client sends them, the bytes of `JSON.stringify` (which escapes an unpaired
 * surrogate as `\ud800`). fast-check prints the seed, the path and the shrunk body of a failure;
 * PRESSROOM_FUZZ_SEED replays a seed.
 */
import fc from "fast-check"
import { randomUUID } from "node:crypto"
import t from "tap"
import { ACCEPTED_FONT_FAMILIES } from "../../src/render/common/font-families.ts"
import { createAccount, requestJson } from "../helpers/api.ts"
import { databaseKinds, freshDatabase } from "../helpers/database.ts"
import { ADMIN_TOKEN, startServer } from "../helpers/server.ts"
import type { TestContext } from "../helpers/tap.ts"

const SEED = Number(process.env.PRESSROOM_FUZZ_SEED ?? 20_261_125)
/** Bodies per endpoint: enough to meet every class, few enough that the file stays well under a minute. */
const RUNS = {
  convert: 80,
  templates: 60,
  accounts: 60,
  keys: 60,
  creditPacks: 40,
  documents: 60,
  revisions: 40,
  renders: 40,
  webhooks: 60
}

const codeUnit = (min: number, max: number) => fc.integer({ min, max }).map((unit) => String.fromCharCode(unit))
const codePoint = (min: number, max: number) => fc.integer({ min, max }).map((point) => String.fromCodePoint(point))

/** One character (or, for surrogates, one code unit) from each class a hostile client may send. */
const character = fc.oneof(
  { weight: 8, arbitrary: codeUnit(0x20, 0x7e) },
  {
    weight: 2,
    arbitrary: fc.constantFrom("#", "*", "_", "`", "[", "]", "(", ")", "!", "<", ">", "|", "-", "\n", "\\", "$", "{", "}", "&", ".")
  },
  { weight: 2, arbitrary: codeUnit(0x00, 0x1f) },
  { weight: 1, arbitrary: fc.constant("\u007f") },
  { weight: 2, arbitrary: codeUnit(0x80, 0x9f) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "\u061c",
      "\u200e",
      "\u200f",
      "\u202a",
      "\u202b",
      "\u202c",
      "\u202d",
      "\u202e",
      "\u2066",
      "\u2067",
      "\u2068",
      "\u2069"
    )
  },
  { weight: 2, arbitrary: codeUnit(0xd800, 0xdbff) },
  { weight: 2, arbitrary: codeUnit(0xdc00, 0xdfff) },
  { weight: 2, arbitrary: codePoint(0x10000, 0x10ffff) },
  { weight: 1, arbitrary: fc.constantFrom("\ufffe", "\uffff", "\ufdd0", "\ufdef", "\u{1fffe}", "\u{10ffff}") },
  { weight: 1, arbitrary: codeUnit(0x0300, 0x036f) },
  { weight: 1, arbitrary: fc.oneof(codeUnit(0x05d0, 0x05ea), codeUnit(0x0627, 0x064a)) },
  { weight: 1, arbitrary: codeUnit(0x4e00, 0x9fff) },
  { weight: 1, arbitrary: codeUnit(0x00a0, 0xd7ff) }
)

const shortText = fc.string({ unit: character, maxLength: 40 })
/** A short piece repeated to between a thousand and 250,000 UTF-16 units: up to about 1.5 MB of JSON. */
const longText = fc
  .tuple(fc.string({ unit: character, minLength: 1, maxLength: 4 }), fc.integer({ min: 1_000, max: 250_000 }))
  .map(([piece, length]) => piece.repeat(Math.ceil(length / piece.length)))
const text = fc.oneof({ weight: 30, arbitrary: shortText }, { weight: 1, arbitrary: longText })

/** Mostly one of `values` (so that most bodies reach the handler), else any text. */
const valueOr = (...values: Array<string>) => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: text })
const colour = fc.oneof({ weight: 4, arbitrary: fc.stringMatching(/^#[0-9a-fA-F]{6}$/) }, { weight: 1, arbitrary: text })

/** Any JSON, its strings drawn from every class. */
const json = fc.jsonValue({ maxDepth: 4, stringUnit: character })

/** `value` inside `depth` arrays or objects. */
const nested = fc.tuple(fc.integer({ min: 1, max: 300 }), fc.boolean(), json).map(([depth, inArrays, value]) => {
  let inner: unknown = value
  for (let level = 0; level < depth; level++) inner = inArrays ? [inner] : { a: inner }
  return inner
})
const anyValue = fc.oneof({ weight: 4, arbitrary: json }, { weight: 1, arbitrary: nested })

/**
 * Bodies for an endpoint whose valid shape `shape` describes: mostly that shape, sometimes with a
 * field replaced by any value or an unknown key added, sometimes any JSON at all.
 */
const bodies = (shape: fc.Arbitrary<Record<string, unknown>>) =>
  fc.oneof(
    { weight: 7, arbitrary: shape },
    {
      weight: 2,
      arbitrary: fc.tuple(shape, fc.nat(), anyValue).map(([body, index, value]) => {
        const names = Object.keys(body)
        return names.length === 0 ? body : { ...body, [names[index % names.length]!]: value }
      })
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(shape, fc.string({ unit: character, maxLength: 12 }), anyValue)
        .map(([body, key, value]) => ({ ...body, [key]: value }))
    },
    { weight: 1, arbitrary: anyValue }
  )

const optionsShape = {
  pageNumbers: fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: text }),
  bodyTextColor: colour,
  headingTextColor: colour,
  creativeAccent: valueOr("slate", "purple", "blue", "emerald", "rose", "amber")
}

/** v1 bodies; `customTemplateId` is a template of the key's owner. */
const convertBody = (customTemplateId: string) =>
  bodies(
    fc.record(
      {
        markdown: text,
        templateId: valueOr("clean", "executive", "resume", "coverletter", "academic", "legal", "creative"),
        filename: valueOr("report.pdf", "Lettre d'été.pdf", "📄.pdf"),
        locale: valueOr("en", "fr", "ar", "ja"),
        customTemplateId: fc.oneof({ weight: 3, arbitrary: fc.constant(customTemplateId) }, fc.uuid(), text),
        options: fc.record(optionsShape, { requiredKeys: [] })
      },
      { requiredKeys: ["markdown"] }
    )
  )

const templateBody = bodies(
  fc.record({
    name: text,
    baseTemplateId: valueOr("clean", "resume-ats", "coverletter"),
    options: fc.record(
      { ...optionsShape, paper: valueOr("a4", "us-letter"), fontFamily: valueOr(...ACCEPTED_FONT_FAMILIES) },
      { requiredKeys: [] }
    )
  })
)

/** A v2 revision (specification 2.5); `parentRevisionId` is mostly null or one of the document's. */
const revisionShape = (parentRevisionId: string | null) =>
  fc.record({
    markdown: text,
    parentRevisionId: fc.oneof({ weight: 3, arbitrary: fc.constant(parentRevisionId) }, fc.uuid(), text),
    spec: fc.record(
      {
        locale: valueOr("en", "fr", "ar", "ja"),
        templateId: valueOr("clean", "resume", "academic-proceedings", "book-literary"),
        options: fc.record({ pageNumbers: optionsShape.pageNumbers, bodyTextColor: colour, headingTextColor: colour }, { requiredKeys: [] })
      },
      { requiredKeys: ["locale", "templateId"] }
    )
  })

const documentBody = bodies(
  fc.record({
    taskId: fc.oneof({ weight: 3, arbitrary: fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,20}$/) }, text),
    title: fc.oneof(fc.constant(null), text),
    revision: revisionShape(null)
  })
)

/** A preview's or publication's body: mostly the document's own revision. */
const renderBody = (revisionId: string) =>
  bodies(
    fc.record({
      revisionId: fc.oneof({ weight: 3, arbitrary: fc.constant(revisionId) }, fc.uuid(), text),
      output: fc.record({ filename: valueOr("report.pdf", "Lettre d'été.pdf", "📄.pdf"), format: valueOr("pdf", "docx") })
    })
  )

const accountBody = bodies(
  fc.record(
    {
      name: text,
      plan: valueOr("free", "monthly", "yearly", "credits", "admin"),
      monthlyUnits: fc.oneof(
        { weight: 4, arbitrary: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 1_000_000 })) },
        { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double()) }
      )
    },
    { requiredKeys: ["name", "plan"] }
  )
)

const keyBody = bodies(
  fc.record(
    {
      scopes: fc.array(valueOr("documents.render", "documents.preview", "documents.read", "webhooks.manage", "templates.manage"), {
        maxLength: 6
      }),
      environment: valueOr("live", "test"),
      expiresAt: fc.oneof(
        { weight: 2, arbitrary: fc.constant(null) },
        {
          weight: 4,
          arbitrary: fc
            .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })
            .map((d) => d.toISOString())
        },
        { weight: 1, arbitrary: text }
      )
    },
    { requiredKeys: [] }
  )
)

const webhookBody = bodies(
  fc.record(
    {
      endpoint: fc.oneof(
        { weight: 3, arbitrary: text.map((path) => `https://hooks.example.com/${path}`) },
        { weight: 1, arbitrary: valueOr("https://hooks.example.com/", "http://hooks.example.com/", "https://[::1]/", "https://") }
      ),
      eventTypes: fc.array(valueOr("job.succeeded", "job.failed", "job.cancelled"), { maxLength: 4 }),
      description: fc.oneof(fc.constant(null), text)
    },
    { requiredKeys: ["endpoint", "eventTypes"] }
  )
)

/**
 * The end of an Idempotency-Key: printable Latin-1, what a header can carry. Each request puts a
 * fresh uuid before it, so no request (a shrinking step's included) replays another.
 */
const keySuffix = fc.string({ unit: fc.oneof(codeUnit(0x20, 0x7e), codeUnit(0xa0, 0xff)), maxLength: 20 })

// One server, so the file stays well under a minute: on PostgreSQL when the run has one (the
// database operators run), else on PGlite; both refuse the same text.
const kind = databaseKinds.at(-1)!
await t.test(kind, async (t) => {
  const database = await freshDatabase(kind)
  t.teardown(database.drop)
  const server = await startServer(t, {
    ...database.env,
    PRESSROOM_RENDER_TIMEOUT_MS: "5000",
    PRESSROOM_RATE_LIMIT_CONVERT_PER_MINUTE: "100000",
    PRESSROOM_RATE_LIMIT_WRITE_PER_MINUTE: "100000",
    PRESSROOM_RATE_LIMIT_READ_PER_MINUTE: "100000",
    PRESSROOM_RATE_LIMIT_PREVIEW_PER_MINUTE: "100000",
    PRESSROOM_RATE_LIMIT_PUBLISH_PER_MINUTE: "100000",
    // Every accepted subscription is created, rather than refused at the cap.
    PRESSROOM_WEBHOOK_MAX_SUBSCRIPTIONS: "100000",
    // Previews and publications answer at once (202); their renders go on meanwhile.
    PRESSROOM_SYNC_THRESHOLD_MS: "0"
  })
  const owner = await createAccount(server, { plan: "admin" })
  // Packs are refused (422) for an unlimited account such as the owner's.
  const buyer = await createAccount(server, { plan: "credits" })
  const custom = await requestJson(server, "POST", "/api/v2/templates", {
    token: owner.key,
    headers: { "idempotency-key": `fuzz-${randomUUID()}` },
    body: { name: "Letterhead", baseTemplateId: "coverletter", options: { paper: "us-letter" } }
  })

  /** Sends `body` and checks the answer and that the server answers the next request. */
  const send = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body)
    })
    const bytes = Buffer.from(await response.arrayBuffer())
    const what = `${method} ${path} answered ${response.status}`
    if (response.status >= 500) throw new Error(`${what}: ${bytes.toString("utf8").slice(0, 500)}`)
    const correlationId = response.headers.get("x-correlation-id")
    if (!/^[0-9a-f-]{36}$/.test(correlationId ?? "")) throw new Error(`${what} without X-Correlation-Id`)
    if (response.status >= 400) {
      const envelope = JSON.parse(bytes.toString("utf8"))
      const error = envelope?.error
      if (typeof error?.code !== "string" || error.httpStatus !== response.status || error.details?.correlationId !== correlationId) {
        throw new Error(`${what} without its error envelope: ${bytes.toString("utf8").slice(0, 500)}`)
      }
      if (path.startsWith("/api/v2/") && envelope.contractVersion !== "publishing.lifecycle.v1") {
        throw new Error(`${what}: a v2 error without contractVersion`)
      }
    }
    const health = await fetch(`${server.url}/healthz`)
    await health.arrayBuffer()
    if (health.status !== 200) throw new Error(`after ${what}, /healthz answered ${health.status}`)
    return response.status
  }

  /** Runs the property over `arbitrary`, tallying the statuses it met. */
  const fuzz = async (t: TestContext, numRuns: number, arbitrary: fc.Arbitrary<unknown>, request: (value: any) => Promise<number>) => {
    const statuses = new Map<number, number>()
    const details = await fc.check(
      fc.asyncProperty(arbitrary, async (value) => {
        const status = await request(value)
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }),
      { numRuns, seed: SEED }
    )
    t.notOk(details.failed, details.failed ? (fc.defaultReportMessage(details) ?? "failed") : `${details.numRuns} bodies, seed ${SEED}`)
    t.comment(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`)
  }

  await t.test("POST /api/v1/convert", (t) =>
    fuzz(t, RUNS.convert, convertBody(custom.body.template.id), (body) =>
      send("POST", "/api/v1/convert", body, { authorization: `Bearer ${owner.key}` })
    )
  )

  await t.test("POST /api/v2/templates", (t) =>
    fuzz(t, RUNS.templates, fc.tuple(templateBody, keySuffix), ([body, suffix]) =>
      send("POST", "/api/v2/templates", body, {
        authorization: `Bearer ${owner.key}`,
        "idempotency-key": `fuzz-${randomUUID()}-${suffix}`.trim()
      })
    )
  )

  const document = await requestJson(server, "POST", "/api/v2/documents", {
    token: owner.key,
    headers: { "idempotency-key": `fuzz-${randomUUID()}` },
    body: {
      taskId: "fuzz",
      title: null,
      revision: { markdown: "# Fuzz", parentRevisionId: null, spec: { locale: "en", templateId: "clean" } }
    }
  })
  const documentPath = `/api/v2/documents/${document.body.document.id}`
  const revisionId: string = document.body.revision.id
  const v2 = (path: string) => (body: unknown, suffix: string) =>
    send("POST", path, body, { authorization: `Bearer ${owner.key}`, "idempotency-key": `fuzz-${randomUUID()}-${suffix}`.trim() })

  await t.test("POST /api/v2/documents", (t) =>
    fuzz(t, RUNS.documents, fc.tuple(documentBody, keySuffix), ([body, suffix]) => v2("/api/v2/documents")(body, suffix))
  )

  await t.test("POST /api/v2/documents/{documentId}/revisions", (t) =>
    fuzz(t, RUNS.revisions, fc.tuple(bodies(revisionShape(revisionId)), keySuffix), ([body, suffix]) =>
      v2(`${documentPath}/revisions`)(body, suffix)
    )
  )

  await t.test("POST /api/v2/documents/{documentId}/previews and /publishes", (t) =>
    fuzz(t, RUNS.renders, fc.tuple(renderBody(revisionId), keySuffix, fc.boolean()), ([body, suffix, final]) =>
      v2(`${documentPath}/${final ? "publishes" : "previews"}`)(body, suffix)
    )
  )

  await t.test("POST /api/v2/webhooks", (t) =>
    fuzz(t, RUNS.webhooks, fc.tuple(webhookBody, keySuffix), ([body, suffix]) => v2("/api/v2/webhooks")(body, suffix))
  )

  await t.test("POST /admin/v1/accounts", (t) =>
    fuzz(t, RUNS.accounts, accountBody, (body) => send("POST", "/admin/v1/accounts", body, { authorization: `Bearer ${ADMIN_TOKEN}` }))
  )

  await t.test("POST /admin/v1/accounts/{accountId}/keys", (t) =>
    fuzz(t, RUNS.keys, keyBody, (body) =>
      send("POST", `/admin/v1/accounts/${owner.accountId}/keys`, body, { authorization: `Bearer ${ADMIN_TOKEN}` })
    )
  )

  await t.test("POST /admin/v1/accounts/{accountId}/credit-packs", (t) =>
    fuzz(
      t,
      RUNS.creditPacks,
      bodies(
        fc.record({
          packs: fc.oneof(
            { weight: 4, arbitrary: fc.integer({ min: 1, max: 1_000 }) },
            { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double()) }
          )
        })
      ),
      (body) => send("POST", `/admin/v1/accounts/${buyer.accountId}/credit-packs`, body, { authorization: `Bearer ${ADMIN_TOKEN}` })
    )
  )
})
