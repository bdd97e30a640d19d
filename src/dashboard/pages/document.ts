/**
 * A document (contract section 12): its revisions, the jobs made of them (status, error, warnings,
 * provenance) and their artifacts, with downloads. Another account's document is not found (404).
 */
import { Effect } from "effect"
import type { Artifact } from "../../artifacts/artifact.ts"
import { servable } from "../../artifacts/operations.ts"
import { Documents } from "../../documents/documents.ts"
import type { Revision } from "../../documents/document.ts"
import { DocumentHistory } from "../../documents/history.ts"
import type { Job } from "../../jobs/job.ts"
import { html } from "../html.ts"
import { document } from "../layout.ts"
import { CurrentMember } from "../member-context.ts"
import { withRefusalPages } from "../page-errors.ts"
import { htmlResponse } from "../responses.ts"
import { showTime } from "../time.ts"
import { downloadPath } from "./artifacts.ts"
import { documentPath } from "./documents.ts"

const short = (id: string | null) => (id === null ? "—" : id.slice(0, 8))

const revisionRow = (documentId: string, revision: Revision) =>
  html`<tr>
    <td>${revision.sequence}</td>
    <td>${showTime(revision.createdAt)}</td>
    <td>${revision.spec.templateId}</td>
    <td>${revision.spec.locale}</td>
    <td>${revision.sourceBytes} bytes</td>
    <td><a href="${documentPath(documentId)}/edit?revision=${revision.id}">Edit from revision ${revision.sequence}</a></td>
  </tr>`

const jobItem = (job: Job, sequenceOf: ReadonlyMap<string, number>) =>
  html`<li class="card job" id="job-${job.id}">
    <h3>${job.purpose === "final" ? "Publication" : "Preview"} <span class="tag status-${job.status}">${job.status}</span></h3>
    <dl class="facts">
      <div><dt>Job</dt><dd><code>${job.id}</code></dd></div>
      <div><dt>Revision</dt><dd>${job.revisionId === null ? "—" : (sequenceOf.get(job.revisionId) ?? short(job.revisionId))}</dd></div>
      <div><dt>Accepted</dt><dd>${showTime(job.acceptedAt)}</dd></div>
      <div><dt>Completed</dt><dd>${showTime(job.completedAt)}</dd></div>
      <div><dt>Channel</dt><dd>${job.provenance.channel}</dd></div>
      <div><dt>Units</dt><dd>${job.entitlement.units} (${job.entitlement.source})</dd></div>
      <div><dt>Template</dt><dd>${job.provenance.templateId} · ${job.provenance.locale}</dd></div>
      <div><dt>Engine</dt><dd>${job.provenance.engineVersion ?? "—"}</dd></div>
      <div><dt>Manifest</dt><dd><code>${job.provenance.manifestSha256?.slice(0, 16) ?? "—"}</code></dd></div>
    </dl>
    ${job.error ? html`<p class="error">${job.error.code}: ${job.error.message}</p>` : ""}
    ${
      job.warnings.length === 0
        ? ""
        : html`<ul class="line-warnings">${job.warnings.map(
            (warning) =>
              html`<li>${warning.line === null ? "" : html`Line ${warning.line}: `}${warning.message} <span class="tag">${warning.code}</span></li>`
          )}</ul>`
    }
    ${job.documentId ? html`<p><a href="${documentPath(job.documentId)}/edit?job=${job.id}">Open in the editor</a></p>` : ""}
  </li>`

const artifactRow = (artifact: Artifact) =>
  html`<tr>
    <td>${artifact.filename}</td>
    <td>${artifact.pageCount}</td>
    <td>${artifact.bytes} bytes</td>
    <td>${servable(artifact) ? "available" : artifact.status === "available" ? "expired" : artifact.status}</td>
    <td>${showTime(artifact.expiresAt)}</td>
    <td>${servable(artifact) ? html`<a href="${downloadPath(artifact.id)}" download>Download ${artifact.filename}</a>` : "—"}</td>
  </tr>`

export const showDocument = (documentId: string) =>
  withRefusalPages(
    Effect.gen(function* () {
      const member = yield* CurrentMember
      const { document: found } = yield* (yield* Documents).detail(member.principal, documentId)
      const history = yield* (yield* DocumentHistory).of(documentId)
      const sequenceOf = new Map(history.revisions.map((revision) => [revision.id, revision.sequence]))
      const title = found.title ?? "Untitled"
      return htmlResponse(
        document({
          title,
          member,
          path: "/app/documents",
          main: html`<div class="heading-row">
              <h1>${title}</h1>
              ${found.status === "active" ? html`<a class="button" href="${documentPath(documentId)}/edit">Edit</a>` : ""}
            </div>
            <p class="hint">Status ${found.status} · ${found.locale} · kept until ${showTime(found.expiresAt)} unless used again.</p>
            <section aria-labelledby="revisions">
              <h2 id="revisions">Revisions</h2>
              <div class="table-box"><table>
                <thead><tr><th scope="col">#</th><th scope="col">Created</th><th scope="col">Template</th><th scope="col">Locale</th><th scope="col">Source</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
                <tbody>${history.revisions.map((revision) => revisionRow(documentId, revision))}</tbody>
              </table></div>
            </section>
            <section aria-labelledby="artifacts">
              <h2 id="artifacts">Artifacts</h2>
              ${
                history.artifacts.length === 0
                  ? html`<p>None yet: preview or publish from the editor.</p>`
                  : html`<div class="table-box"><table>
                      <thead><tr><th scope="col">File</th><th scope="col">Pages</th><th scope="col">Size</th><th scope="col">State</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Download</span></th></tr></thead>
                      <tbody>${history.artifacts.map(artifactRow)}</tbody>
                    </table></div>`
              }
            </section>
            <section aria-labelledby="jobs">
              <h2 id="jobs">Jobs</h2>
              ${
                history.jobs.length === 0
                  ? html`<p>None yet.</p>`
                  : html`<ol class="jobs">${history.jobs.map((job) => jobItem(job, sequenceOf))}</ol>`
              }
            </section>`
        })
      )
    })
  )
