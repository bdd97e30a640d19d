/**
 * The v2 request validation matrix (specification sections 2.5, 4, 7 and 8; contract section 3),
 * black-box against a real server on each database: 400 for the shape of a body, path, query or
 * Idempotency-Key, 415 for a body that is not JSON, 413 for one over 4 MiB, and 422 for content
 * that cannot be accepted. Every refusal is the v2 envelope, naming the field where there is one.
 * Nothing here renders: every refusal comes before a job would be admitted.
 */
import { randomUUID } from "node:crypto"
import t from "tap"
import { createAccount, requestJson } from "../helpers/api.ts"
import { forEachSharedServer } from "../helpers/shared-server.ts"
import { idempotencyKey, mutate, newDocument, renderBody, revisionBody } from "../helpers/v2.ts"
import { expectError, sendRaw } from "../helpers/v2-contract.ts"

/** A deep copy of `body` with the member at the dotted `path` set to `value`, or removed when `value` is `remove`. */
const remove = Symbol("remove")
const edit = (body: unknown, path: string, value: unknown): any => {
  const copy = structuredClone(body) as Record<string, any>
  const names = path.split(".")
  const last = names.pop()!
  const parent = names.reduce((object, name) => object[name], copy)
  if (value === remove) delete parent[last]
  else parent[last] = value
  return copy
}

const documentBody = (overrides: Record<string, unknown> = {}) => ({
  taskId: "task-validation",
  title: "Validation",
  revision: revisionBody(),
  ...overrides
})

const over4MiB = JSON.stringify({ markdown: "a".repeat(4 * 1024 * 1024 + 1) })

t.test("v2 request validation", (t) =>
  forEachSharedServer(t, async (t, server) => {
    const { key: token } = await createAccount(server)
    const a = await newDocument(server, token, { taskId: "task-a" })
    const b = await newDocument(server, token, { taskId: "task-b" })
    const documentPath = `/api/v2/documents/${a.documentId}`
    const post = (path: string, body: unknown) => mutate(server, "POST", path, token, body)

    /** The operations that carry a body, each with a valid body. */
    const bodyOperations = [
      { name: "create document", path: "/api/v2/documents", body: documentBody() },
      { name: "create revision", path: `${documentPath}/revisions`, body: revisionBody() },
      { name: "preview", path: `${documentPath}/previews`, body: renderBody(a.revisionId) },
      { name: "publication", path: `${documentPath}/publishes`, body: renderBody(a.revisionId) },
      { name: "cancel", path: `/api/v2/jobs/${randomUUID()}/cancel`, body: {} }
    ]
    const mutations = [
      ...bodyOperations.map((operation) => ({ ...operation, method: "POST" })),
      { name: "delete", method: "DELETE", path: documentPath, body: undefined }
    ]

    await t.test("400: path identifiers that are not uuids, named", async (t) => {
      const operations = [
        ["get document", "GET", "/api/v2/documents/not-a-uuid", "documentId"],
        ["delete document", "DELETE", "/api/v2/documents/not-a-uuid", "documentId"],
        ["create revision", "POST", "/api/v2/documents/not-a-uuid/revisions", "documentId"],
        ["preview", "POST", "/api/v2/documents/not-a-uuid/previews", "documentId"],
        ["publication", "POST", "/api/v2/documents/not-a-uuid/publishes", "documentId"],
        ["get job", "GET", "/api/v2/jobs/12345678-1234-1234-1234-12345678901", "jobId"],
        ["cancel job", "POST", "/api/v2/jobs/not-a-uuid/cancel", "jobId"],
        ["download", "GET", "/api/v2/artifacts/not-a-uuid/download", "artifactId"],
        ["create link", "POST", "/api/v2/artifacts/not-a-uuid/links", "artifactId"]
      ] as const
      for (const [name, method, path, field] of operations) {
        const body = name === "create revision" ? revisionBody() : name.startsWith("p") ? renderBody(a.revisionId) : undefined
        const response = await requestJson(server, method, path, {
          token,
          headers: { "idempotency-key": idempotencyKey() },
          ...(body === undefined ? {} : { body })
        })
        expectError(t, response, 400, "invalid_request", name, { field })
      }
    })

    await t.test("400: a body that is not JSON or not an object", async (t) => {
      for (const { name, path } of bodyOperations) {
        for (const text of ["{", "not json", "[]", '"text"', "5"]) {
          const response = await sendRaw(server, "POST", path, {
            token,
            headers: { "content-type": "application/json", "idempotency-key": idempotencyKey() },
            body: text
          })
          expectError(t, response, 400, "invalid_request", `${name} with ${text}`)
        }
      }
      // Cancel takes no body or {}: both pass validation and reach the (unknown) job.
      const cancelPath = `/api/v2/jobs/${randomUUID()}/cancel`
      expectError(t, await mutate(server, "POST", cancelPath, token), 404, "not_found", "cancel without a body")
      expectError(t, await post(cancelPath, {}), 404, "not_found", "cancel with {}")
      for (const { name, path } of bodyOperations.filter((operation) => operation.name !== "cancel")) {
        expectError(t, await post(path, null), 400, "invalid_request", `${name} with null`)
      }
    })

    await t.test("400: a required field missing, at each level, named", async (t) => {
      const cases = [
        ["/api/v2/documents", documentBody(), ["revision", "taskId", "title"]],
        [
          "/api/v2/documents",
          documentBody(),
          ["revision.markdown", "revision.parentRevisionId", "revision.spec", "revision.spec.locale", "revision.spec.templateId"]
        ],
        [`${documentPath}/revisions`, revisionBody(), ["markdown", "parentRevisionId", "spec", "spec.locale", "spec.templateId"]],
        [`${documentPath}/previews`, renderBody(a.revisionId), ["revisionId", "output", "output.filename", "output.format"]],
        [`${documentPath}/publishes`, renderBody(a.revisionId), ["revisionId", "output", "output.filename", "output.format"]]
      ] as const
      for (const [path, body, fields] of cases) {
        for (const field of fields) {
          expectError(t, await post(path, edit(body, field, remove)), 400, "invalid_request", `${path} without ${field}`, { field })
        }
      }
    })

    await t.test("spec.options may be left out (default {})", async (t) => {
      const created = await post("/api/v2/documents", edit(documentBody(), "revision.spec.options", remove))
      t.equal(created.status, 201)
      const revised = await post(`${documentPath}/revisions`, edit(revisionBody(), "spec.options", remove))
      t.equal(revised.status, 201)
    })

    await t.test("400: a field of the wrong JSON type, named", async (t) => {
      const cases: ReadonlyArray<readonly [string, unknown, string, unknown]> = [
        ["/api/v2/documents", documentBody(), "taskId", 5],
        ["/api/v2/documents", documentBody(), "title", 5],
        ["/api/v2/documents", documentBody(), "title", false],
        ["/api/v2/documents", documentBody(), "revision", "text"],
        ["/api/v2/documents", documentBody(), "revision.markdown", 5],
        ["/api/v2/documents", documentBody(), "revision.parentRevisionId", 5],
        ["/api/v2/documents", documentBody(), "revision.parentRevisionId", "not-a-uuid"],
        ["/api/v2/documents", documentBody(), "revision.spec", []],
        ["/api/v2/documents", documentBody(), "revision.spec.locale", 5],
        ["/api/v2/documents", documentBody(), "revision.spec.templateId", null],
        ["/api/v2/documents", documentBody(), "revision.spec.options", "none"],
        ["/api/v2/documents", documentBody(), "revision.spec.options.pageNumbers", "yes"],
        ["/api/v2/documents", documentBody(), "revision.spec.options.bodyTextColor", 5],
        ["/api/v2/documents", documentBody(), "revision.spec.options.headingTextColor", false],
        [`${documentPath}/revisions`, revisionBody(), "markdown", null],
        [`${documentPath}/revisions`, revisionBody(), "parentRevisionId", "not-a-uuid"],
        [`${documentPath}/revisions`, revisionBody(), "spec.options.pageNumbers", "yes"],
        [`${documentPath}/previews`, renderBody(a.revisionId), "revisionId", 5],
        [`${documentPath}/previews`, renderBody(a.revisionId), "revisionId", "not-a-uuid"],
        [`${documentPath}/previews`, renderBody(a.revisionId), "output", "document.pdf"],
        [`${documentPath}/previews`, renderBody(a.revisionId), "output.filename", 5],
        [`${documentPath}/publishes`, renderBody(a.revisionId), "output.format", 5],
        [`${documentPath}/publishes`, renderBody(a.revisionId), "revisionId", null]
      ]
      for (const [path, body, field, value] of cases) {
        expectError(
          t,
          await post(path, edit(body, field, value)),
          400,
          "invalid_request",
          `${path} with ${field} ${JSON.stringify(value)}`,
          {
            field
          }
        )
      }
    })

    await t.test("400: an unknown property at each level, named", async (t) => {
      const cases = [
        ["/api/v2/documents", documentBody(), "extra"],
        ["/api/v2/documents", documentBody(), "revision.extra"],
        ["/api/v2/documents", documentBody(), "revision.spec.extra"],
        ["/api/v2/documents", documentBody(), "revision.spec.options.extra"],
        // Specification 2.5 lists three options for a revision; creativeAccent is v1's and a custom template's.
        ["/api/v2/documents", documentBody(), "revision.spec.options.creativeAccent"],
        [`${documentPath}/revisions`, revisionBody(), "extra"],
        [`${documentPath}/revisions`, revisionBody(), "spec.options.creativeAccent"],
        [`${documentPath}/previews`, renderBody(a.revisionId), "extra"],
        [`${documentPath}/publishes`, renderBody(a.revisionId), "output.extra"],
        [`/api/v2/jobs/${randomUUID()}/cancel`, {}, "extra"]
      ] as const
      for (const [path, body, field] of cases) {
        const value = field.endsWith("creativeAccent") ? "rose" : 1
        expectError(t, await post(path, edit(body, field, value)), 400, "invalid_request", `${path} with ${field}`, { field })
      }
    })

    await t.test("taskId: 1 to 100 characters of ^[a-z0-9][a-z0-9._-]*$ (else 400)", async (t) => {
      for (const taskId of ["", "t".repeat(101), "Task", "-task", ".task", "task one", "tâche"]) {
        expectError(
          t,
          await post("/api/v2/documents", documentBody({ taskId })),
          400,
          "invalid_request",
          `taskId ${JSON.stringify(taskId)}`,
          {
            field: "taskId"
          }
        )
      }
      for (const taskId of ["t", "t".repeat(100), "0a.b_c-d"]) {
        t.equal((await post("/api/v2/documents", documentBody({ taskId }))).status, 201, `taskId ${JSON.stringify(taskId)} accepted`)
      }
    })

    await t.test("title: null or 1 to 160 characters (else 400)", async (t) => {
      for (const title of ["", "t".repeat(161)]) {
        expectError(t, await post("/api/v2/documents", documentBody({ title })), 400, "invalid_request", `title of ${title.length}`, {
          field: "title"
        })
      }
      for (const title of [null, "t", "t".repeat(160)]) {
        const created = await post("/api/v2/documents", documentBody({ title }))
        t.equal(created.status, 201, `title ${title === null ? "null" : `of ${title.length}`} accepted`)
        t.equal(created.body.document.title, title)
      }
    })

    await t.test("list: limit 1 to 100, cursor at most 512 characters (else 400)", async (t) => {
      for (const limit of ["0", "101", "abc", "-1", "1.5", ""]) {
        const response = await requestJson(server, "GET", `/api/v2/documents?limit=${limit}`, { token })
        expectError(t, response, 400, "invalid_request", `limit=${limit}`, { field: "limit" })
      }
      for (const limit of ["1", "100"]) {
        t.equal((await requestJson(server, "GET", `/api/v2/documents?limit=${limit}`, { token })).status, 200, `limit=${limit}`)
      }
      const long = await requestJson(server, "GET", `/api/v2/documents?cursor=${"a".repeat(513)}`, { token })
      expectError(t, long, 400, "invalid_request", "a cursor of 513 characters", { field: "cursor" })
    })

    await t.test("Idempotency-Key: missing, 7 or 201 characters, or a control character is 400 on every mutation", async (t) => {
      const keys: ReadonlyArray<readonly [string, string | undefined]> = [
        ["missing", undefined],
        ["7 characters", "k".repeat(7)],
        ["201 characters", "k".repeat(201)],
        ["a tab", "test\tkey-0001"]
      ]
      for (const { name, method, path, body } of mutations) {
        for (const [what, key] of keys) {
          const response = await requestJson(server, method, path, {
            token,
            headers: key === undefined ? {} : { "idempotency-key": key },
            ...(body === undefined ? {} : { body })
          })
          expectError(t, response, 400, "invalid_request", `${name}, key ${what}`, { field: "idempotency-key" })
        }
      }
      // The bounds themselves are keys.
      for (const key of ["k".repeat(8), "k".repeat(200)]) {
        t.equal((await mutate(server, "POST", "/api/v2/documents", token, documentBody(), key)).status, 201, `a key of ${key.length}`)
      }
    })

    await t.test("415: a body without Content-Type or of another type; a charset parameter is accepted", async (t) => {
      for (const { name, path, body } of bodyOperations) {
        for (const contentType of [undefined, "text/plain", "application/x-www-form-urlencoded", "application/jsonx"]) {
          const response = await sendRaw(server, "POST", path, {
            token,
            headers: { "idempotency-key": idempotencyKey(), ...(contentType === undefined ? {} : { "content-type": contentType }) },
            body: JSON.stringify(body)
          })
          expectError(t, response, 415, "invalid_request", `${name} with Content-Type ${contentType ?? "(none)"}`)
        }
      }
      for (const contentType of ["application/json; charset=utf-8", "Application/JSON;charset=UTF-8"]) {
        for (const { name, path, body } of bodyOperations.slice(0, 2)) {
          const response = await sendRaw(server, "POST", path, {
            token,
            headers: { "idempotency-key": idempotencyKey(), "content-type": contentType },
            body: JSON.stringify(body)
          })
          t.equal(response.status, 201, `${name} with ${contentType}`)
        }
      }
    })

    await t.test("413: a body over 4 MiB", async (t) => {
      for (const { name, path } of bodyOperations) {
        const response = await sendRaw(server, "POST", path, {
          token,
          headers: { "idempotency-key": idempotencyKey(), "content-type": "application/json" },
          body: over4MiB
        })
        expectError(t, response, 413, "invalid_request", name)
      }
    })

    await t.test("422: markdown empty or over 200,000 characters; 200,000 accepted", async (t) => {
      const cases = [
        ["/api/v2/documents", (markdown: string) => documentBody({ revision: revisionBody(markdown) }), "revision.markdown"],
        [`${documentPath}/revisions`, (markdown: string) => revisionBody(markdown), "markdown"]
      ] as const
      for (const [path, body, field] of cases) {
        for (const markdown of ["", "a".repeat(200_001)]) {
          expectError(t, await post(path, body(markdown)), 422, "invalid_request", `${path}: markdown of ${markdown.length}`, { field })
        }
        const accepted = await post(path, body("a".repeat(200_000)))
        t.equal(accepted.status, 201, `${path}: markdown of 200,000`)
        t.equal(accepted.body.revision.sourceBytes, 200_000)
      }
    })

    await t.test("422: unknown template or locale, invalid colours", async (t) => {
      const cases = [
        ["revision.spec.templateId", "no-such-template"],
        ["revision.spec.templateId", "Clean"],
        ["revision.spec.locale", "xx"],
        ["revision.spec.locale", "EN"],
        ["revision.spec.options.bodyTextColor", "red"],
        ["revision.spec.options.bodyTextColor", "#12345"],
        ["revision.spec.options.headingTextColor", "#12345g"],
        ["revision.spec.options.headingTextColor", "1a2b3c"]
      ] as const
      for (const [field, value] of cases) {
        expectError(t, await post("/api/v2/documents", edit(documentBody(), field, value)), 422, "invalid_request", `${field} ${value}`, {
          field
        })
        const revisionField = field.slice("revision.".length)
        expectError(
          t,
          await post(`${documentPath}/revisions`, edit(revisionBody(), revisionField, value)),
          422,
          "invalid_request",
          `revision's ${revisionField} ${value}`,
          { field: revisionField }
        )
      }
    })

    await t.test("422: parent revisions of another document, or any parent on a new document", async (t) => {
      expectError(
        t,
        await post("/api/v2/documents", documentBody({ revision: revisionBody(undefined, {}, a.revisionId) })),
        422,
        "invalid_request",
        "a parent on a new document",
        {
          field: "revision.parentRevisionId"
        }
      )
      for (const [what, parent] of [
        ["another document's revision", b.revisionId],
        ["an unknown revision", randomUUID()]
      ] as const) {
        expectError(t, await post(`${documentPath}/revisions`, revisionBody(undefined, {}, parent)), 422, "invalid_request", what, {
          field: "parentRevisionId"
        })
      }
      const child = await post(`${documentPath}/revisions`, revisionBody(undefined, {}, a.revisionId))
      t.equal(child.status, 201, "the document's own revision is a parent")
      t.equal(child.body.revision.parentRevisionId, a.revisionId)
    })

    await t.test("422: output format, unusable filenames, revisions of another document (preview and publication)", async (t) => {
      for (const kind of ["previews", "publishes"]) {
        const path = `${documentPath}/${kind}`
        expectError(t, await post(path, edit(renderBody(a.revisionId), "output.format", "docx")), 422, "invalid_request", `${kind}: docx`, {
          field: "output.format"
        })
        for (const filename of ["", ".", "..", "a/b.pdf", "a\\b.pdf", "a\u0007b.pdf", "a\u202eb.pdf", `${"f".repeat(197)}.pdf`]) {
          expectError(
            t,
            await post(path, renderBody(a.revisionId, filename)),
            422,
            "invalid_request",
            `${kind}: filename ${JSON.stringify(filename)}`,
            {
              field: "output.filename"
            }
          )
        }
        for (const [what, revisionId] of [
          ["another document's revision", b.revisionId],
          ["an unknown revision", randomUUID()]
        ] as const) {
          expectError(t, await post(path, renderBody(revisionId)), 422, "invalid_request", `${kind}: ${what}`, { field: "revisionId" })
        }
      }
    })
  })
)
