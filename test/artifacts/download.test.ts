/**
 * Artifact downloads as a client meets them, on each database: with the key (200, the PDF,
 * Content-Disposition, ETag, and 304 for a matching If-None-Match), through a minted link without
 * any key (GET and HEAD, `href` absolute on PRESSROOM_PUBLIC_BASE_URL, `Cache-Control: no-store`,
 * an expiry within the link TTL and the artifact's own, the artifact's expiry untouched), and
 * refused: a link altered anywhere, cut, garbled or past its expiry is 403 with no PDF bytes.
 */
import t from "tap"
import { createAccount, type JsonResponse, requestJson } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { sleep } from "../helpers/lifecycle.ts"
import { pdfText } from "../helpers/pdf.ts"
import { startServer } from "../helpers/server.ts"
import type { TestContext } from "../helpers/tap.ts"
import { expectError } from "../helpers/v2-contract.ts"
import { awaitJob, download, newDocument, publish } from "../helpers/v2.ts"

const PUBLIC_BASE = "https://pdf.example.test/pressroom"

/** A link response with the key, as a JSON response. */
const mint = (server: { url: string }, key: string, artifactId: string) =>
  requestJson(server, "POST", `/api/v2/artifacts/${artifactId}/links`, { token: key })

/** A download answer read as a JsonResponse, for expectError. */
const asJson = (answer: Awaited<ReturnType<typeof download>>): JsonResponse => ({
  status: answer.status,
  headers: answer.headers,
  body: answer.error
})

/** The href a server would give, moved from the public base to the server's own address. */
const local = (server: { url: string }, href: string) => `${server.url}${href.slice(PUBLIC_BASE.length)}`

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, { ...database.env, PRESSROOM_PUBLIC_BASE_URL: `${PUBLIC_BASE}/`, PRESSROOM_LINK_TTL_SECONDS: "3" })
  const owner = await createAccount(server)
  const { documentId, revisionId } = await newDocument(server, owner.key, { markdown: "# Linked report\n\nNothing but this." })
  const admitted = await publish(server, owner.key, documentId, revisionId)
  // A first render on a loaded machine may outlast the synchronous threshold (202): its job is awaited then.
  const published = admitted.status === 202 ? await awaitJob(server, owner.key, admitted.body.job.id) : admitted
  t.equal(published.status, 200)
  const artifact = published.body.artifact

  await t.test("download with the key: the PDF, its name, its ETag, and 304 when unchanged", async (t) => {
    const answer = await download(server, artifact.downloadPath, owner.key)
    t.equal(answer.status, 200)
    t.equal(answer.headers.get("content-type"), "application/pdf")
    t.equal(answer.headers.get("content-disposition"), 'attachment; filename="document.pdf"')
    t.equal(answer.headers.get("etag"), `"${artifact.sha256}"`)
    t.equal(answer.headers.get("cache-control"), "private, no-store", "no cache keeps the PDF")
    t.equal(answer.headers.get("x-content-type-options"), "nosniff")
    t.equal(answer.bytes.length, artifact.bytes)
    t.match(pdfText(answer.bytes), /Linked report/)
    const again = await download(server, artifact.downloadPath, owner.key, "GET", { "if-none-match": `"${artifact.sha256}"` })
    t.equal(again.status, 304)
    t.equal(again.headers.get("etag"), `"${artifact.sha256}"`, "304 names the ETag")
    t.equal(again.bytes.length, 0, "no body")
    const other = await download(server, artifact.downloadPath, owner.key, "GET", { "if-none-match": `"${"0".repeat(64)}"` })
    t.equal(other.status, 200, "another ETag gets the bytes")
    expectError(t, asJson(await download(server, artifact.downloadPath)), 401, "unauthorized", "without a key")
  })

  await t.test("a minted link downloads without any key, by GET and HEAD, within its lifetime", async (t) => {
    const before = Date.now()
    const link = await mint(server, owner.key, artifact.id)
    t.equal(link.status, 201)
    t.equal(link.headers.get("cache-control"), "no-store")
    t.same(Object.keys(link.body).sort(), ["artifactId", "contractVersion", "expiresAt", "href", "retention"])
    t.equal(link.body.artifactId, artifact.id)
    t.ok(link.body.href.startsWith(`${PUBLIC_BASE}/api/v2/`), `href on the public base: ${link.body.href}`)
    const expiresAt = Date.parse(link.body.expiresAt)
    t.ok(expiresAt <= before + 3_000 + 1_000 && expiresAt > before - 1_000, "the link lasts PRESSROOM_LINK_TTL_SECONDS")
    t.same(link.body.retention, artifact.retention, "minting leaves the artifact's retention as it was")

    const got = await download(server, local(server, link.body.href))
    t.equal(got.status, 200)
    t.equal(got.headers.get("content-type"), "application/pdf")
    t.equal(got.headers.get("etag"), `"${artifact.sha256}"`)
    t.equal(got.headers.get("cache-control"), "private, no-store", "no cache keeps the PDF")
    t.equal(got.headers.get("referrer-policy"), "no-referrer", "a page the PDF opens learns nothing of the link")
    t.equal(got.headers.get("x-content-type-options"), "nosniff")
    t.same(got.bytes, (await download(server, artifact.downloadPath, owner.key)).bytes, "the same bytes as with the key")
    const head = await download(server, local(server, link.body.href), undefined, "HEAD")
    t.equal(head.status, 200)
    t.equal(head.headers.get("content-length"), String(artifact.bytes))
    t.equal(head.headers.get("content-type"), "application/pdf")
    t.equal(head.headers.get("cache-control"), "private, no-store")
    t.equal(head.headers.get("referrer-policy"), "no-referrer")
    t.equal(head.bytes.length, 0, "HEAD has no body")

    const job = await requestJson(server, "GET", `/api/v2/jobs/${artifact.jobId}`, { token: owner.key })
    t.equal(job.body.artifact.retention.expiresAt, artifact.retention.expiresAt, "the artifact's expiry is not extended")
  })

  await t.test("an altered, cut, garbled or expired link is 403 and serves no bytes", async (t: TestContext) => {
    const href: string = local(server, (await mint(server, owner.key, artifact.id)).body.href)
    const token = href.slice(href.lastIndexOf("/") + 1)
    const base = href.slice(0, href.lastIndexOf("/") + 1)
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1)
    const cases: Array<[string, string]> = [
      ["a character of the payload changed", flip(token, 3)],
      ["a character of the signature changed", flip(token, token.length - 5)],
      ["the last character changed", flip(token, token.length - 1)],
      ["cut short", token.slice(0, -4)],
      ["without its signature", token.slice(0, token.indexOf("."))],
      ["garbage", "not-a-link"],
      ["the artifact id in its place", artifact.id]
    ]
    for (const [what, altered] of cases) {
      for (const method of ["GET", "HEAD"]) {
        const answer = await download(server, `${base}${encodeURIComponent(altered)}`, undefined, method)
        t.equal(answer.status, 403, `${what} (${method})`)
        t.not(answer.headers.get("content-type"), "application/pdf", `${what} (${method}): no PDF`)
        if (method === "GET") expectError(t, asJson(answer), 403, "forbidden", what)
      }
    }
    await sleep(4_500)
    const expired = await download(server, href)
    expectError(t, asJson(expired), 403, "forbidden", "a link past its expiry")
    t.equal((await download(server, artifact.downloadPath, owner.key)).status, 200, "the artifact itself is still there")
  })
})
