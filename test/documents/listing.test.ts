/**
 * Listing documents (specification sections 4 and 8, contract section 5), black-box against a
 * real server on each database: newest first, limit 1 to 100 with 25 by default, pages that cover
 * every document exactly once, deleted documents and other owners' left out, and a cursor that is
 * opaque and tamper-evident (400 for a changed, invented, borrowed or over-long one).
 */
import t from "tap"
import { createAccount, requestJson } from "../helpers/api.ts"
import { forEachSharedServer, type SharedServer } from "../helpers/shared-server.ts"
import { createDocument, mutate } from "../helpers/v2.ts"
import { CONTRACT_VERSION, expectError } from "../helpers/v2-contract.ts"

const list = (server: SharedServer, token: string, query = "") => requestJson(server, "GET", `/api/v2/documents${query}`, { token })

/** Every page from the first, following nextCursor, with `limit` (or the default). */
const allPages = async (server: SharedServer, token: string, limit?: number) => {
  const pages = []
  let cursor: string | null = null
  do {
    const query = new URLSearchParams({ ...(limit === undefined ? {} : { limit: String(limit) }), ...(cursor === null ? {} : { cursor }) })
    const page = await list(server, token, `?${query}`)
    if (page.status !== 200) throw new Error(`list failed: ${page.status} ${JSON.stringify(page.body)}`)
    pages.push(page.body)
    cursor = page.body.pagination.nextCursor
  } while (cursor !== null && pages.length < 100)
  return pages
}

const ids = (page: { documents: Array<{ id: string }> }) => page.documents.map((document) => document.id)

/** `text` with its character at `index` replaced by another of the base64url alphabet. */
const changeAt = (text: string, index: number) => {
  const replacement = text[index] === "A" ? "B" : "A"
  return `${text.slice(0, index)}${replacement}${text.slice(index + 1)}`
}

t.test("listing documents", (t) =>
  forEachSharedServer(t, async (t, server) => {
    const owner = await createAccount(server)
    const other = await createAccount(server)
    const created: Array<string> = []
    for (let i = 0; i < 30; i++) {
      const response = await createDocument(server, owner.key, { taskId: `task-${i}`, title: `Document ${i}` })
      if (response.status !== 201) throw new Error(`creation failed: ${response.status}`)
      created.push(response.body.document.id)
    }
    const theirs = await createDocument(server, other.key, { taskId: "theirs" })
    const newestFirst = [...created].reverse()

    await t.test("newest first, 25 by default, then the rest", async (t) => {
      const pages = await allPages(server, owner.key)
      t.equal(pages.length, 2)
      t.equal(pages[0].contractVersion, CONTRACT_VERSION)
      t.same(ids(pages[0]), newestFirst.slice(0, 25), "the first page: the 25 newest")
      t.equal(pages[0].pagination.hasMore, true)
      t.type(pages[0].pagination.nextCursor, "string")
      t.ok(pages[0].pagination.nextCursor.length <= 512, "a cursor is at most 512 characters")
      t.same(ids(pages[1]), newestFirst.slice(25), "the second page: the 5 oldest")
      t.same(pages[1].pagination, { hasMore: false, nextCursor: null })
      const createdAt = [...pages[0].documents, ...pages[1].documents].map((document: { createdAt: string }) =>
        Date.parse(document.createdAt)
      )
      t.ok(
        createdAt.every((time, i) => i === 0 || time <= createdAt[i - 1]!),
        "createdAt never increases"
      )
    })

    await t.test("pages of any size cover every document exactly once", async (t) => {
      for (const limit of [1, 7, 29, 30, 100]) {
        const pages = await allPages(server, owner.key, limit)
        t.same(pages.flatMap(ids), newestFirst, `limit ${limit}: every document once, in order`)
        t.equal(pages.length, Math.ceil(30 / limit), `limit ${limit}: ${Math.ceil(30 / limit)} pages`)
        t.ok(
          pages.every((page, i) => page.documents.length === Math.min(limit, 30 - i * limit)),
          `limit ${limit}: full pages but the last`
        )
        t.same(pages.at(-1).pagination, { hasMore: false, nextCursor: null }, `limit ${limit}: the last page says so`)
      }
    })

    await t.test("another owner's documents are never shown", async (t) => {
      const pages = await allPages(server, owner.key, 100)
      t.notOk(pages.flatMap(ids).includes(theirs.body.document.id), "not in the owner's list")
      const their = await list(server, other.key)
      t.same(ids(their.body), [theirs.body.document.id], "and theirs holds only their own")
    })

    await t.test("tampered cursors are 400", async (t) => {
      const first = await list(server, owner.key, "?limit=10")
      const cursor = first.body.pagination.nextCursor as string
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["its first character changed", changeAt(cursor, 0)],
        ["a middle character changed", changeAt(cursor, Math.floor(cursor.length / 2))],
        ["its last character changed", changeAt(cursor, cursor.length - 1)],
        ["cut short", cursor.slice(0, -4)],
        ["lengthened", `${cursor}AAAA`],
        // What a client might construct: the placeholder's own form, naming the 10th document.
        ["invented", Buffer.from(JSON.stringify([first.body.documents[9].createdAt, first.body.documents[9].id])).toString("base64url")],
        ["not base64", "!!not a cursor!!"],
        ["over 512 characters", cursor.padEnd(513, "A")]
      ]
      for (const [what, tampered] of cases) {
        const response = await list(server, owner.key, `?limit=10&cursor=${encodeURIComponent(tampered)}`)
        expectError(t, response, 400, "invalid_request", `a cursor ${what}`, { field: "cursor" })
      }
      const borrowed = await list(server, other.key, `?limit=10&cursor=${encodeURIComponent(cursor)}`)
      expectError(t, borrowed, 400, "invalid_request", "another owner's cursor", { field: "cursor" })
      const honest = await list(server, owner.key, `?limit=10&cursor=${encodeURIComponent(cursor)}`)
      t.same(ids(honest.body), newestFirst.slice(10, 20), "the untouched cursor still gives the next page")
    })

    await t.test("deleted documents are left out", async (t) => {
      const gone = [newestFirst[0]!, newestFirst[12]!, newestFirst[29]!]
      for (const id of gone) {
        const deleted = await mutate(server, "DELETE", `/api/v2/documents/${id}`, owner.key)
        t.equal(deleted.status, 202)
      }
      const remaining = newestFirst.filter((id) => !gone.includes(id))
      t.same((await allPages(server, owner.key, 4)).flatMap(ids), remaining, "pages of 4 cover the rest exactly once")
      const page = await list(server, owner.key)
      t.equal(page.body.documents.length, 25)
      t.equal(page.body.pagination.hasMore, true)
      const detail = await requestJson(server, "GET", `/api/v2/documents/${gone[0]}`, { token: owner.key })
      t.equal(detail.body.document.status, "deleted", "a deleted document still answers GET")
    })
  })
)
