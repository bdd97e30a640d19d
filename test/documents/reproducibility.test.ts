/**
 * Reproducibility through v2 (contract section 11), black-box on each database: one revision
 * previewed twice and published twice, and another account's document with the same source and
 * spec (rendered again, since renders are shared only within an account), give
 * the same PDF bytes and the same provenance hashes, while requestSha256 is each request's own
 * (the canonical hash of its operation, path and body: contract section 4). The same source in
 * another locale gives another manifestSha256.
 */
import t from "tap"
import { createAccount } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { SHA256 } from "../helpers/job-response.ts"
import { startServer } from "../helpers/server.ts"
import { download, mutate, newDocument, renderBody } from "../helpers/v2.ts"

/** What determines the bytes: equal for equal source and spec. */
const SHARED = [
  "sourceSha256",
  "optionsSha256",
  "renderOptionsSha256",
  "templateDefinitionSha256",
  "templateReleaseSha256",
  "fontSetSha256",
  "catalogSha256",
  "rendererReleaseChecksum",
  "manifestSha256"
] as const

const MARKDOWN = "# Ada Lovelace\n\nAnalyst of the *Analytical Engine*.\n\n- Notes\n- Bernoulli numbers\n"
const SPEC = { locale: "en", templateId: "resume", options: { pageNumbers: true } }

await forEachDatabase(t, async (t, database) => {
  const server = await startServer(t, database.env)
  const account = await createAccount(server)
  // Jobs of one account with equal manifests share a render (contract section 11); another
  // account's are rendered, which is what shows the bytes reproduced.
  const other = await createAccount(server)

  /** A preview or publication of the revision with `filename`, awaited (the threshold allows it). */
  const render = async (
    purpose: "previews" | "publishes",
    document: { documentId: string; revisionId: string },
    filename: string,
    key = account.key
  ) => {
    const response = await mutate(
      server,
      "POST",
      `/api/v2/documents/${document.documentId}/${purpose}`,
      key,
      renderBody(document.revisionId, filename)
    )
    if (response.body?.job?.status !== "succeeded") throw new Error(`render did not succeed: ${JSON.stringify(response.body)}`)
    return response.body
  }

  await t.test("one revision and one source: the same bytes and hashes, each request its own requestSha256", async (t) => {
    const first = await newDocument(server, account.key, { markdown: MARKDOWN, spec: SPEC })
    const second = await newDocument(server, other.key, { markdown: MARKDOWN, spec: SPEC, taskId: "task-2" })
    const renders = [
      await render("previews", first, "one.pdf"),
      await render("previews", first, "two.pdf"),
      await render("publishes", first, "one.pdf"),
      await render("publishes", first, "two.pdf"),
      await render("previews", second, "one.pdf", other.key),
      await render("publishes", second, "one.pdf", other.key)
    ]
    const keys = [...renders.slice(0, 4).map(() => account.key), other.key, other.key]
    const [reference] = renders
    t.ok(
      renders.every((body) => body.artifact.sha256 === reference.artifact.sha256),
      "every artifact has the same sha256"
    )
    const pdfs = await Promise.all(renders.map(async (body, i) => (await download(server, body.artifact.downloadPath, keys[i])).bytes))
    t.ok(
      pdfs.every((pdf) => Buffer.from(pdf).equals(Buffer.from(pdfs[0]!))),
      "and the same bytes"
    )
    for (const field of SHARED) {
      t.match(reference.job.provenance[field], SHA256, `${field} is a hash`)
      t.ok(
        renders.every((body) => body.job.provenance[field] === reference.job.provenance[field]),
        `${field} is the same for all six`
      )
    }
    const requestHashes = renders.map((body) => body.job.requestSha256)
    t.equal(new Set(requestHashes).size, renders.length, "requestSha256 differs per request")
    t.ok(
      renders.every((body) => body.job.provenance.requestSha256 === body.job.requestSha256),
      "provenance.requestSha256 is the job's"
    )
    // The same operation, path and body is the same canonical request, whatever its Idempotency-Key.
    const again = await render("previews", first, "one.pdf")
    t.equal(again.job.requestSha256, reference.job.requestSha256, "an identical request has the same requestSha256")
    t.not(again.job.id, reference.job.id, "though it is another job")
  })

  await t.test("the same source in another locale: another manifestSha256", async (t) => {
    const english = await newDocument(server, account.key, { markdown: MARKDOWN, spec: SPEC, taskId: "task-en" })
    const german = await newDocument(server, account.key, { markdown: MARKDOWN, spec: { ...SPEC, locale: "de" }, taskId: "task-de" })
    const [en, de] = [await render("previews", english, "cv.pdf"), await render("previews", german, "cv.pdf")]
    t.equal(de.job.provenance.sourceSha256, en.job.provenance.sourceSha256, "the same source")
    t.equal(de.job.provenance.locale, "de")
    t.not(de.job.provenance.manifestSha256, en.job.provenance.manifestSha256, "another manifestSha256")
  })
})
