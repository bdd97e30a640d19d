/**
 * The /docs page reads before any script runs (issue 38): Scalar's reference draws itself from a
 * 3.5 MB script, so the page the server sends starts with a plain HTML overview of the API (the
 * introduction's first paragraph, each tag with its description, each operation's method, path,
 * name and summary). A style rule hides the overview once Scalar's app is on the page, so a
 * browser shows it while the script loads and a reader without scripts (or a crawler) keeps it.
 */
import { HttpBody, HttpServerRequest, HttpServerResponse, OpenApi } from "@effect/platform"
import type * as HttpApp from "@effect/platform/HttpApp"
import { Effect } from "effect"
import { PressroomApi } from "./api.ts"

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** `code` spans of Markdown as HTML, the rest escaped: summaries and descriptions use nothing else. */
const inline = (markdown: string) =>
  escapeHtml(markdown)
    .split("`")
    .map((part, index) => (index % 2 === 1 ? `<code>${part}</code>` : part))
    .join("")

interface Operation {
  readonly method: string
  readonly path: string
  readonly operationId: string
  readonly summary: string
  readonly tag: string
}

/** The overview of `spec`, as one HTML fragment. */
export const overviewOf = (spec: OpenApi.OpenAPISpec): string => {
  const operations: Array<Operation> = Object.entries(spec.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, operation]) =>
      typeof operation === "object" && operation !== null && "operationId" in operation
        ? [
            {
              method: method.toUpperCase(),
              path,
              operationId: operation.operationId,
              summary: operation.summary ?? "",
              tag: operation.tags?.[0] ?? ""
            }
          ]
        : []
    )
  )
  const introduction = (spec.info.description ?? "").split("\n\n")[0] ?? ""
  const sections = spec.tags.map((tag) => {
    const rows = operations
      .filter((operation) => operation.tag === tag.name)
      .map(
        (operation) =>
          `<tr><td><code>${operation.method}</code></td><td><code>${escapeHtml(operation.path)}</code></td><td><strong>${escapeHtml(operation.operationId)}</strong> ${inline(operation.summary)}</td></tr>`
      )
    return `<h2>${escapeHtml(tag.name)}</h2>\n<p>${inline(tag.description ?? "")}</p>\n<table>${rows.join("\n")}</table>`
  })
  return `<style>
#pressroom-overview { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1b1f24 }
#pressroom-overview table { border-collapse: collapse; width: 100%; table-layout: fixed }
#pressroom-overview td:nth-child(1) { width: 4.5rem }
#pressroom-overview td:nth-child(2) { width: 24rem; overflow-wrap: anywhere }
#pressroom-overview td { border-top: 1px solid #d8dee4; padding: 0.3rem 0.6rem 0.3rem 0; vertical-align: top }
#pressroom-overview code { font-size: 0.9em }
body:has(.scalar-app) #pressroom-overview { display: none }
</style>
<main id="pressroom-overview">
<h1>${escapeHtml(spec.info.title)} API reference</h1>
<p>${inline(introduction)} The whole document: <a href="/api/v2/openapi.json">/api/v2/openapi.json</a>.</p>
${sections.join("\n")}
</main>`
}

/**
 * Middleware that puts the overview at the top of the page Scalar's layer answers on `path`,
 * keeping that answer's status and headers.
 */
export const withOverview = (path: string) => {
  const overview = overviewOf(OpenApi.fromApi(PressroomApi))
  return (app: HttpApp.Default): HttpApp.Default =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const response = yield* app
      if (request.method !== "GET" || new URL(request.url, "http://x").pathname !== path || response.body._tag !== "Uint8Array")
        return response
      const html = new TextDecoder().decode(response.body.body).replace("<body>", `<body>\n${overview}`)
      return HttpServerResponse.setBody(response, HttpBody.text(html, "text/html"))
    })
}
