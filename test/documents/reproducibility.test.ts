/**
 * Reproducibility through v2 (contract section 11), black-box on each database: the same source
 * and spec rendered by three accounts (three renders, since renders are shared only within an
 * account: /metrics shows they are not reuses), two previews and one publication, give the same
 * PDF bytes and the same provenance hashes; so do the previews and publications an account
 * repeats, which reuse its render. requestSha256 is each request's own (the canonical hash of its
 * operation, path and body: contract section 4). The same source in another locale gives another
 * manifestSha256.
 */
import t from "tap"
import { createAccount } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { SHA256 } from "../helpers/job-response.ts"
import { startServer } from "../helpers/server.ts"
import { awaitJob, download, mutate, newDocument, renderBody } from "../helpers/v2.ts"

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
  // Jobs of one account with equal manifests share a render (contract section 11); other
  // accounts' are rendered, which is what shows the bytes reproduced.
  const others = [await createAccount(server), await createAccount(server)]

  /** Renders done and renders reused so far, from /metrics. */
  const counts = async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text()
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0)
    return {
      rendered: value(/^pressroom_render_duration_seconds_count\{outcome="succeeded"\} (\d+)$/m),
      reused: value(/^pressroom_render_reuses_total (\d+)$/m)
    }
  }

  /** A preview or publication of the revision with `filename`, awaited (past the threshold, at its job). */
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
    const ended = response.status === 202 ? (await awaitJob(server, key, response.body.job.id)).body : response.body
    if (ended?.job?.status !== "succeeded") throw new Error(`render did not succeed: ${JSON.stringify(ended)}`)
    return ended
  }

  await t.test(
    "one source rendered in three accounts and reused within them: the same bytes and hashes, each request its own requestSha256",
    async (t) => {
      const before = await counts()
      const first = await newDocument(server, account.key, { markdown: MARKDOWN, spec: SPEC })
      const second = await newDocument(server, others[0]!.key, { markdown: MARKDOWN, spec: SPEC, taskId: "task-2" })
      const third = await newDocument(server, others[1]!.key, { markdown: MARKDOWN, spec: SPEC, taskId: "task-3" })
      const keys = [account.key, account.key, account.key, account.key, others[0]!.key, others[0]!.key, others[1]!.key]
      const renders = [
        await render("previews", first, "one.pdf"),
        await render("previews", first, "two.pdf"),
        await render("publishes", first, "one.pdf"),
        await render("publishes", first, "two.pdf"),
        await render("previews", second, "one.pdf", keys[4]),
        await render("publishes", second, "one.pdf", keys[5]),
        await render("publishes", third, "one.pdf", keys[6])
      ]
      const after = await counts()
      // Each account's first render is typeset; the rest of its renders reuse it.
      t.same(
        { rendered: after.rendered - before.rendered, reused: after.reused - before.reused },
        { rendered: 3, reused: 4 },
        "three renders (a preview in two accounts, a publication in the third) and four reuses"
      )
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
          `${field} is the same for all seven`
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
    }
  )

  await t.test("the same source in another locale: another manifestSha256", async (t) => {
    const english = await newDocument(server, account.key, { markdown: MARKDOWN, spec: SPEC, taskId: "task-en" })
    const german = await newDocument(server, account.key, { markdown: MARKDOWN, spec: { ...SPEC, locale: "de" }, taskId: "task-de" })
    const [en, de] = [await render("previews", english, "cv.pdf"), await render("previews", german, "cv.pdf")]
    t.equal(de.job.provenance.sourceSha256, en.job.provenance.sourceSha256, "the same source")
    t.equal(de.job.provenance.locale, "de")
    t.not(de.job.provenance.manifestSha256, en.job.provenance.manifestSha256, "another manifestSha256")
  })
})
