/**
 * A v2 client of a running server, in the words of the specification: documents, revisions,
 * previews, publications, jobs and artifacts, over plain HTTP (the contract tests stay on raw
 * HTTP so that a schema disagreeing with the specification cannot hide behind a client made from it).
 */
import { randomUUID } from "node:crypto"
import { type JsonResponse, requestJson } from "./api.ts"
import type { RunningServer } from "./server.ts"

type Server = Pick<RunningServer, "url">

export interface SpecInput {
  readonly locale?: string
  readonly templateId?: string
  readonly options?: Record<string, unknown>
}

/** A revision body; `markdown` and the spec default to a short résumé in English. */
export const revisionBody = (markdown = "# Ada Lovelace\n\nAnalyst.", spec: SpecInput = {}, parentRevisionId: string | null = null) => ({
  markdown,
  parentRevisionId,
  spec: { locale: spec.locale ?? "en", templateId: spec.templateId ?? "resume", options: spec.options ?? {} }
})

/** A fresh Idempotency-Key. */
export const idempotencyKey = () => `test-${randomUUID()}`

/** A mutation with a fresh Idempotency-Key unless `key` is given. */
export const mutate = <T = any>(server: Server, method: string, path: string, token: string, body?: unknown, key = idempotencyKey()) =>
  requestJson<T>(server, method, path, { token, headers: { "idempotency-key": key }, ...(body === undefined ? {} : { body }) })

export const createDocument = (
  server: Server,
  token: string,
  options: { markdown?: string; spec?: SpecInput; taskId?: string; title?: string | null; key?: string } = {}
) =>
  mutate(
    server,
    "POST",
    "/api/v2/documents",
    token,
    {
      taskId: options.taskId ?? "task-1",
      title: options.title === undefined ? "A document" : options.title,
      revision: revisionBody(options.markdown, options.spec)
    },
    options.key
  )

/** Creates a document and answers its id and first revision's id (throws unless 201). */
export const newDocument = async (server: Server, token: string, options: Parameters<typeof createDocument>[2] = {}) => {
  const created = await createDocument(server, token, options)
  if (created.status !== 201) throw new Error(`document creation failed: ${created.status} ${JSON.stringify(created.body)}`)
  return { documentId: created.body.document.id as string, revisionId: created.body.revision.id as string, response: created }
}

export const renderBody = (revisionId: string, filename = "document.pdf") => ({ revisionId, output: { filename, format: "pdf" } })

export const preview = (server: Server, token: string, documentId: string, revisionId: string, key?: string) =>
  mutate(server, "POST", `/api/v2/documents/${documentId}/previews`, token, renderBody(revisionId), key)

export const publish = (server: Server, token: string, documentId: string, revisionId: string, key?: string) =>
  mutate(server, "POST", `/api/v2/documents/${documentId}/publishes`, token, renderBody(revisionId), key)

export const getJob = (server: Server, token: string, jobId: string) => requestJson(server, "GET", `/api/v2/jobs/${jobId}`, { token })

/** Polls the job until it has ended (or `timeoutMs` passes) and answers its last JobResponse. */
export const awaitJob = async (server: Server, token: string, jobId: string, timeoutMs = 60_000): Promise<JsonResponse> => {
  const deadline = Date.now() + timeoutMs
  while (true) {
    const response = await getJob(server, token, jobId)
    if (["succeeded", "failed", "cancelled"].includes(response.body?.job?.status) || Date.now() > deadline) return response
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** GET of a path or absolute URL, answering the bytes (a PDF) or the parsed error. */
export const download = async (server: Server, pathOrUrl: string, token?: string, method = "GET", headers: Record<string, string> = {}) => {
  const url = pathOrUrl.startsWith("http") ? pathOrUrl : `${server.url}${pathOrUrl}`
  const response = await fetch(url, { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } })
  const bytes = new Uint8Array(await response.arrayBuffer())
  const isPdf = response.headers.get("content-type") === "application/pdf"
  return {
    status: response.status,
    headers: response.headers,
    bytes,
    error: !isPdf && bytes.length > 0 ? (JSON.parse(Buffer.from(bytes).toString("utf8")) as { error: Record<string, any> }) : undefined
  }
}
