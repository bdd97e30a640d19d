/**
 * What `HttpApi` cannot declare, added to the generated OpenAPI document so that it tells the
 * truth: the response headers the server sends (`X-Correlation-Id` everywhere, `Retry-After` on
 * 429 and 503, `Allow` on 405, `Content-Disposition` on PDFs, `Idempotency-Replayed` where an
 * Idempotency-Key is taken, `Cache-Control: no-store` on a body that holds a credential and `private, no-store` on
 * a PDF, `X-Content-Type-Options` everywhere, `Referrer-Policy` on a download by link, `ETag` on
 * artifact downloads, `Location` on a creation), and no trace of the built-in decode-error body,
 * which the error envelope replaces before any client sees it.
 */
import { dialectOf } from "../shared/error-responses.ts"

// biome-ignore lint/suspicious/noExplicitAny: the generated document is untyped JSON, walked by its known shape
type Json = Record<string, any>

const header = (description: string, schema: Json = { type: "string" }) => ({ description, schema })

const HEADERS = {
  "X-Correlation-Id": header("A fresh id per response, quoted in error bodies as details.correlationId", {
    type: "string",
    format: "uuid"
  }),
  "Retry-After": header("Seconds to wait before retrying", { type: "string", pattern: "^[0-9]+$" }),
  Allow: header("The methods this path accepts"),
  "Content-Disposition": header('attachment; filename="…" (with filename* for names outside ASCII)'),
  "Idempotency-Replayed": header("true when this response replays an earlier request's result", { type: "string", enum: ["true"] }),
  "Cache-Control": header("no-store: the body holds a credential (a secret shown once, or a download link)", {
    type: "string",
    enum: ["no-store"]
  }),
  "Cache-Control (PDF)": header("private, no-store: a document's PDF is kept by no cache, shared or not", {
    type: "string",
    enum: ["private, no-store"]
  }),
  "X-Content-Type-Options": header("nosniff: the body is what Content-Type says, on every response", {
    type: "string",
    enum: ["nosniff"]
  }),
  "Referrer-Policy": header("no-referrer: a page opened from the PDF learns nothing of the link", {
    type: "string",
    enum: ["no-referrer"]
  }),
  ETag: header("The artifact's SHA-256, quoted; send it as If-None-Match to get 304 when unchanged"),
  Location: header("The path of the created resource")
}

const DECODE_ERROR_REF = "#/components/schemas/HttpApiDecodeError"

/** The decode error's place is taken by the envelope of the path's dialect. */
const withoutDecodeError = (schema: Json | undefined, path: string): Json | undefined => {
  if (schema?.$ref === DECODE_ERROR_REF) {
    return { $ref: `#/components/schemas/${dialectOf(path) === "v2" ? "PublishingErrorEnvelope" : "V1ErrorBody"}` }
  }
  if (!schema?.anyOf) return schema
  const rest = schema.anyOf.filter((option: Json) => option.$ref !== DECODE_ERROR_REF)
  return rest.length === 1 ? rest[0] : { ...schema, anyOf: rest }
}

/** Whether a response body holds a credential (a new API key's `secret`, a download link's `href`), which no cache may keep. */
const holdsCredential = (spec: Json, response: Json): boolean =>
  Object.values<Json>(response.content ?? {}).some((content) => {
    const schema = content.schema?.$ref
      ? spec.components?.schemas?.[content.schema.$ref.replace("#/components/schemas/", "")]
      : content.schema
    return schema?.properties?.secret !== undefined || schema?.properties?.href !== undefined
  })

export const describeHeaders = (spec: Json): Json => {
  for (const [path, operations] of Object.entries<Json>(spec.paths ?? {})) {
    for (const operation of Object.values<Json>(operations)) {
      const idempotent = (operation.parameters ?? []).some((p: Json) => p.in === "header" && p.name.toLowerCase() === "idempotency-key")
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        for (const content of Object.values<Json>(response.content ?? {})) content.schema = withoutDecodeError(content.schema, path)
        if (status === "400" && response.description === "The request did not match the expected schema") {
          response.description =
            "The request is malformed: not JSON, wrong shape, unknown property, or an invalid header, path or query value."
        }
        const headers: Json = {
          "X-Correlation-Id": HEADERS["X-Correlation-Id"],
          "X-Content-Type-Options": HEADERS["X-Content-Type-Options"]
        }
        if (status === "429" || status === "503") headers["Retry-After"] = HEADERS["Retry-After"]
        if (status === "405") headers.Allow = HEADERS.Allow
        if (response.content?.["application/pdf"]) headers["Content-Disposition"] = HEADERS["Content-Disposition"]
        if (idempotent && status !== "429" && status !== "503") headers["Idempotency-Replayed"] = HEADERS["Idempotency-Replayed"]
        if (holdsCredential(spec, response)) headers["Cache-Control"] = HEADERS["Cache-Control"]
        const byLink = path.startsWith("/api/v2/artifact-links/") && status.startsWith("2")
        // A download by link's HEAD answers the headers of the PDF it would send.
        if (response.content?.["application/pdf"] || byLink) headers["Cache-Control"] = HEADERS["Cache-Control (PDF)"]
        if (byLink) headers["Referrer-Policy"] = HEADERS["Referrer-Policy"]
        if (path.includes("/artifact") && (response.content?.["application/pdf"] || status === "304")) headers.ETag = HEADERS.ETag
        if (status === "201" && (path === "/api/v2/documents" || path === "/api/v2/templates")) headers.Location = HEADERS.Location
        response.headers = { ...response.headers, ...headers }
      }
    }
  }
  const referenced = JSON.stringify(spec.paths)
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) {
    if (!referenced.includes(`#/components/schemas/${name}"`)) delete spec.components?.schemas?.[name]
  }
  return spec
}
