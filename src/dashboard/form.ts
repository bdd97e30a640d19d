/**
 * A posted form's fields. The API's body checks refuse anything but JSON (src/http/request-body.ts),
 * so the dashboard reads its `application/x-www-form-urlencoded` bodies from Node's request itself,
 * with a limit of its own.
 */
import type { HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Data, Effect } from "effect"

/** Enough for a Markdown document in a form (the API's body limit). */
export const MAX_FORM_BYTES = 4 * 1024 * 1024

export class FormRefused extends Data.TaggedError("FormRefused")<{ readonly status: 400 | 413 | 415 }> {}

const isForm = (contentType: string | undefined) =>
  (contentType ?? "").split(";")[0]!.trim().toLowerCase() === "application/x-www-form-urlencoded"

export const readForm = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<URLSearchParams, FormRefused> => {
  if (!isForm(request.headers["content-type"])) return Effect.fail(new FormRefused({ status: 415 }))
  const incoming = NodeHttpServerRequest.toIncomingMessage(request)
  return Effect.tryPromise({
    try: async () => {
      const chunks: Array<Buffer> = []
      let size = 0
      for await (const chunk of incoming as AsyncIterable<Buffer>) {
        size += chunk.length
        if (size > MAX_FORM_BYTES) throw new FormRefused({ status: 413 })
        chunks.push(chunk)
      }
      return new URLSearchParams(Buffer.concat(chunks).toString("utf8"))
    },
    catch: (error) => (error instanceof FormRefused ? error : new FormRefused({ status: 400 }))
  })
}
