/** The documents list (contract section 12): the account's documents, newest first, a page at a time. */
import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { Documents } from "../../documents/documents.ts"
import { Cursors } from "../../shared/cursor.ts"
import { pageOf } from "../../shared/pagination.ts"
import { html } from "../html.ts"
import { document } from "../layout.ts"
import { CurrentMember } from "../member-context.ts"
import { withRefusalPages } from "../page-errors.ts"
import { htmlResponse } from "../responses.ts"
import { showTime } from "../time.ts"

const PAGE = 50

export const documentPath = (documentId: string) => `/app/documents/${documentId}`

export const showDocuments = withRefusalPages(
  Effect.gen(function* () {
    const member = yield* CurrentMember
    const { principal } = member
    const cursors = yield* Cursors
    const cursor = new URL((yield* HttpServerRequest.HttpServerRequest).url, "http://x").searchParams.get("cursor")
    const after = cursor === null ? null : yield* cursors.decode(principal.accountId, cursor)
    const page = pageOf(yield* (yield* Documents).list(principal, PAGE + 1, after), PAGE, (position) =>
      cursors.encode(principal.accountId, position)
    )
    const { nextCursor } = page.pagination
    return htmlResponse(
      document({
        title: "Documents",
        member,
        path: "/app/documents",
        main: html`<div class="heading-row">
            <h1>Documents</h1>
            <a class="button" href="/app/documents/new">New document</a>
          </div>
          ${
            page.items.length === 0
              ? html`<p>No documents yet. <a href="/app/documents/new">Write one</a>.</p>`
              : html`<div class="table-box"><table>
                  <caption class="visually-hidden">Documents, newest first</caption>
                  <thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Locale</th><th scope="col">Updated</th></tr></thead>
                  <tbody>
                    ${page.items.map(
                      ({ document: item }) => html`<tr>
                        <td><a href="${documentPath(item.id)}">${item.title ?? "Untitled"}</a></td>
                        <td>${item.status}</td>
                        <td>${item.locale}</td>
                        <td>${showTime(item.updatedAt)}</td>
                      </tr>`
                    )}
                  </tbody>
                </table></div>`
          }
          ${nextCursor ? html`<p><a href="/app/documents?cursor=${encodeURIComponent(nextCursor)}">Older documents</a></p>` : ""}`
      })
    )
  })
)
