/**
 * Who may do what, black-box against a real server on each database: another owner's document,
 * job or artifact is a 404 identical to a missing one and is left as it was (specification
 * section 5, rule 7), and each operation needs its scope (contract section 2's table), a 403
 * otherwise, which does and spends nothing.
 */
import { randomUUID } from "node:crypto"
import t from "tap"
import { createAccount, type JsonResponse, requestJson, usageOf } from "../helpers/api.ts"
import { forEachSharedServer } from "../helpers/shared-server.ts"
import { createDocument, download, getJob, mutate, newDocument, preview, publish, revisionBody } from "../helpers/v2.ts"
import { createKey, expectError, withoutCorrelation } from "../helpers/v2-contract.ts"

t.test("v2 ownership and scopes", (t) =>
  forEachSharedServer(t, async (t, server) => {
    const owner = await createAccount(server)
    const other = await createAccount(server)
    const { documentId, revisionId } = await newDocument(server, owner.key)
    const previewJob = await preview(server, owner.key, documentId, revisionId)
    const finalJob = await publish(server, owner.key, documentId, revisionId)
    t.equal(previewJob.status, 200, "the preview ended within the threshold")
    t.equal(finalJob.status, 200, "the publication ended within the threshold")
    const previewJobId = previewJob.body.job.id as string
    const finalJobId = finalJob.body.job.id as string
    const artifactId = finalJob.body.artifact.id as string

    /** Every operation on a resource, given the ids to act on. */
    const operations = (ids: { documentId: string; revisionId: string; jobId: string; artifactId: string }) =>
      [
        ["get document", (token: string) => requestJson(server, "GET", `/api/v2/documents/${ids.documentId}`, { token })],
        ["delete document", (token: string) => mutate(server, "DELETE", `/api/v2/documents/${ids.documentId}`, token)],
        [
          "create revision",
          (token: string) => mutate(server, "POST", `/api/v2/documents/${ids.documentId}/revisions`, token, revisionBody())
        ],
        ["preview", (token: string) => preview(server, token, ids.documentId, ids.revisionId)],
        ["publication", (token: string) => publish(server, token, ids.documentId, ids.revisionId)],
        ["get job", (token: string) => getJob(server, token, ids.jobId)],
        ["cancel job", (token: string) => mutate(server, "POST", `/api/v2/jobs/${ids.jobId}/cancel`, token)],
        [
          "download",
          async (token: string): Promise<JsonResponse> => {
            const response = await download(server, `/api/v2/artifacts/${ids.artifactId}/download`, token)
            return { status: response.status, headers: response.headers, body: response.error }
          }
        ],
        ["create link", (token: string) => requestJson(server, "POST", `/api/v2/artifacts/${ids.artifactId}/links`, { token })]
      ] as const

    await t.test("another owner's resources are 404, exactly as missing ones, and stay as they were", async (t) => {
      const before = {
        document: (await requestJson(server, "GET", `/api/v2/documents/${documentId}`, { token: owner.key })).body,
        finalJob: (await getJob(server, owner.key, finalJobId)).body,
        previewJob: (await getJob(server, owner.key, previewJobId)).body,
        usage: await usageOf(server, owner.accountId)
      }
      const theirs = operations({ documentId, revisionId, jobId: finalJobId, artifactId })
      const missing = operations({ documentId: randomUUID(), revisionId: randomUUID(), jobId: randomUUID(), artifactId: randomUUID() })
      for (const [index, [name, call]] of theirs.entries()) {
        const refused = await call(other.key)
        expectError(t, refused, 404, "not_found", `${name} of another owner's`)
        const absent = await missing[index]![1](owner.key)
        expectError(t, absent, 404, "not_found", `${name} of a missing one`)
        t.same(withoutCorrelation(refused.body), withoutCorrelation(absent.body), `${name}: the same body as a missing one`)
      }
      const previewCancel = await mutate(server, "POST", `/api/v2/jobs/${previewJobId}/cancel`, other.key)
      expectError(t, previewCancel, 404, "not_found", "cancel of another owner's preview")

      const after = {
        document: (await requestJson(server, "GET", `/api/v2/documents/${documentId}`, { token: owner.key })).body,
        finalJob: (await getJob(server, owner.key, finalJobId)).body,
        previewJob: (await getJob(server, owner.key, previewJobId)).body,
        usage: await usageOf(server, owner.accountId)
      }
      t.same(after, before, "the owner's document (no revision added, not deleted, no activity), jobs and units are unchanged")
      t.equal(before.document.document.status, "active")
      const pdf = await download(server, `/api/v2/artifacts/${artifactId}/download`, owner.key)
      t.equal(pdf.status, 200, "the owner still downloads the artifact")
      const spent = await usageOf(server, other.accountId)
      t.same({ used: spent.used, reserved: spent.reserved }, { used: 0, reserved: 0 }, "the other owner spent nothing")
      const listed = await requestJson(server, "GET", "/api/v2/documents", { token: other.key })
      t.same(listed.body.documents, [], "and lists nothing")
    })

    await t.test("each operation needs its scope (contract section 2); a 403 does and spends nothing", async (t) => {
      const keys = {
        read: await createKey(server, owner.accountId, ["documents.read"]),
        render: await createKey(server, owner.accountId, ["documents.render"]),
        preview: await createKey(server, owner.accountId, ["documents.preview"]),
        templates: await createKey(server, owner.accountId, ["templates.manage"])
      }
      type Scope = keyof typeof keys
      const documentPath = `/api/v2/documents/${documentId}`
      const throwaway = async () => (await newDocument(server, owner.key, { taskId: "throwaway" })).documentId
      /** Operation, the scopes that may call it, and the call: allowed answers `expected`. */
      const matrix: ReadonlyArray<readonly [string, ReadonlyArray<Scope>, (token: string) => Promise<JsonResponse>, number]> = [
        ["create document", ["render", "preview"], (token) => createDocument(server, token), 201],
        [
          "create revision",
          ["render", "preview"],
          (token) => mutate(server, "POST", `${documentPath}/revisions`, token, revisionBody()),
          201
        ],
        ["delete document", ["render"], async (token) => mutate(server, "DELETE", `/api/v2/documents/${await throwaway()}`, token), 202],
        ["get document", ["read"], (token) => requestJson(server, "GET", documentPath, { token }), 200],
        ["list documents", ["read"], (token) => requestJson(server, "GET", "/api/v2/documents", { token }), 200],
        ["get job", ["read"], (token) => getJob(server, token, finalJobId), 200],
        [
          "download",
          ["read"],
          async (token) => {
            const response = await download(server, `/api/v2/artifacts/${artifactId}/download`, token)
            return { status: response.status, headers: response.headers, body: response.error }
          },
          200
        ],
        ["create link", ["read"], (token) => requestJson(server, "POST", `/api/v2/artifacts/${artifactId}/links`, { token }), 201],
        ["preview", ["preview"], (token) => preview(server, token, documentId, revisionId), 200],
        ["publication", ["render"], (token) => publish(server, token, documentId, revisionId), 200],
        // A cancel that passes its scope reaches the job, which has ended: 409, not 403.
        ["cancel a final job", ["render"], (token) => mutate(server, "POST", `/api/v2/jobs/${finalJobId}/cancel`, token), 409],
        ["cancel a preview job", ["preview"], (token) => mutate(server, "POST", `/api/v2/jobs/${previewJobId}/cancel`, token), 409]
      ]
      for (const [name, allowed, call, expected] of matrix) {
        for (const scope of Object.keys(keys) as Array<Scope>) {
          const usage = await usageOf(server, owner.accountId)
          const response = await call(keys[scope])
          if (allowed.includes(scope)) {
            t.equal(response.status, expected, `${name} with ${scope}: ${expected}`)
            if (expected === 409) t.equal(response.body?.error?.code, "invalid_state_transition", `${name} with ${scope} reaches the job`)
          } else {
            expectError(t, response, 403, "forbidden", `${name} with only ${scope}`)
            t.same(await usageOf(server, owner.accountId), usage, `${name} with only ${scope} spends nothing`)
          }
        }
      }
    })
  })
)
