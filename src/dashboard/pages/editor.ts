/**
 * The editor (contract section 12): Markdown, a template chosen from the gallery's images, a locale
 * and options, for a new document or a new revision of one. `Preview` typesets it as a preview job
 * (no unit) and shows the PDF in the page; `Publish` makes a final publication, and the page says
 * beforehand that it uses a unit and from which pool. Both are jobs of the `web` channel, made
 * through the services the API uses (documents/operations.ts). What is sent is decoded with the API's own
 * request schemas, so the dashboard accepts exactly what the API accepts.
 */
import { HttpServerRequest } from "@effect/platform"
import { Duration, Effect, Either, Option } from "effect"
import type { Principal } from "../../accounts/principal.ts"
import { Admission } from "../../admission/admission.ts"
import { CreateDocumentRequest, CreateRevisionRequest } from "../../documents/api.ts"
import type { Revision } from "../../documents/document.ts"
import { Documents } from "../../documents/documents.ts"
import { renderRevision } from "../../documents/operations.ts"
import { checkRevision, checkTitle } from "../../documents/revision-request.ts"
import { Ledger } from "../../entitlements/ledger.ts"
import { isTerminal, type Job } from "../../jobs/job.ts"
import { Jobs } from "../../jobs/jobs.ts"
import { catalog } from "../../render/catalog.ts"
import { LOCALES } from "../../render/locales.ts"
import { type PressroomError, publishingError } from "../../shared/errors.ts"
import { jcsSha256 } from "../../shared/hash.ts"
import { CustomTemplates } from "../../templates/repository.ts"
import { csrfField } from "../csrf.ts"
import { decodedRequest } from "../decode.ts"
import { memberForm } from "../forms.ts"
import { galleryPath } from "../gallery.ts"
import { type Html, html } from "../html.ts"
import { document } from "../layout.ts"
import { CurrentMember } from "../member-context.ts"
import { withRefusalPages } from "../page-errors.ts"
import { htmlResponse, redirect } from "../responses.ts"
import { downloadPath, previewPath } from "./artifacts.ts"
import { documentPath } from "./documents.ts"
import { warningsBesideLines } from "./warnings.ts"

/** How long the page waits for its preview or publication: longer than the API's threshold, since a person is watching. */
const DASHBOARD_WAIT = Duration.seconds(30)

/** The editor's fields, as the form sends them and as a revision fills them in. */
interface Draft {
  readonly title: string
  readonly markdown: string
  readonly templateId: string
  readonly locale: string
  readonly pageNumbers: "" | "on" | "off"
  readonly bodyTextColor: string
  readonly headingTextColor: string
  readonly filename: string
}

const EMPTY: Draft = {
  title: "",
  markdown: "",
  templateId: "clean",
  locale: "en",
  pageNumbers: "",
  bodyTextColor: "",
  headingTextColor: "",
  filename: "document.pdf"
}

const draftOfForm = (form: URLSearchParams): Draft => {
  const pageNumbers = form.get("pageNumbers") ?? ""
  return {
    title: (form.get("title") ?? "").trim(),
    // Browsers send a textarea's line breaks as CRLF; the source is stored as the person typed it.
    markdown: (form.get("markdown") ?? "").replace(/\r\n/g, "\n"),
    templateId: form.get("templateId") ?? "",
    locale: form.get("locale") ?? "",
    pageNumbers: pageNumbers === "on" || pageNumbers === "off" ? pageNumbers : "",
    bodyTextColor: (form.get("bodyTextColor") ?? "").trim(),
    headingTextColor: (form.get("headingTextColor") ?? "").trim(),
    filename: (form.get("filename") ?? "").trim()
  }
}

const draftOfRevision = (revision: Revision, title: string, filename: string): Draft => {
  const options = revision.spec.options ?? {}
  const text = (value: unknown) => (typeof value === "string" ? value : "")
  return {
    title,
    markdown: revision.markdown ?? "",
    templateId: revision.spec.templateId,
    locale: revision.spec.locale,
    pageNumbers: options.pageNumbers === true ? "on" : options.pageNumbers === false ? "off" : "",
    bodyTextColor: text(options.bodyTextColor),
    headingTextColor: text(options.headingTextColor),
    filename
  }
}

/** The draft as the API's revision request; options left empty are left out (the template's defaults). */
const revisionRequestOf = (draft: Draft, parentRevisionId: string | null) => ({
  markdown: draft.markdown,
  parentRevisionId,
  spec: {
    locale: draft.locale,
    templateId: draft.templateId,
    options: {
      ...(draft.pageNumbers === "" ? {} : { pageNumbers: draft.pageNumbers === "on" }),
      ...(draft.bodyTextColor === "" ? {} : { bodyTextColor: draft.bodyTextColor }),
      ...(draft.headingTextColor === "" ? {} : { headingTextColor: draft.headingTextColor })
    }
  }
})

const sameContent = (revision: Revision, request: { readonly markdown: string; readonly spec: unknown }) =>
  revision.markdown === request.markdown && jcsSha256(revision.spec) === jcsSha256(request.spec)

// ---------------------------------------------------------------------------------------------
// The page

interface EditorView {
  readonly member: typeof CurrentMember.Service
  readonly documentId: string | null
  readonly draft: Draft
  readonly job?: Job
  readonly error?: string
  readonly publishCost: string
  readonly basedOn?: string
}

const option = (value: string, label: string, selected: boolean) =>
  html`<option value="${value}"${selected ? html` selected` : ""}>${label}</option>`

const templateChoice = (draft: Draft) =>
  html`<fieldset class="template-choice">
    <legend>Template</legend>
    <div class="gallery-picker">
      ${catalog.templates.map(
        (template) => html`<label class="template-card">
          <input type="radio" name="templateId" value="${template.id}"${template.id === draft.templateId ? html` checked` : ""}>
          <img src="${galleryPath(template.id)}" alt="" width="120" height="170" loading="lazy">
          <span>${template.title}</span>
        </label>`
      )}
    </div>
  </fieldset>`

/** What happened to the job the page was sent back with: the PDF in a frame, its status, or its error; and its warnings. */
const jobPanel = (job: Job, markdown: string) => {
  const what = job.purpose === "preview" ? "Preview" : "Publication"
  const state: Html = !isTerminal(job.status)
    ? html`<p class="notice" role="status" data-refresh-after="2">Typesetting… (${job.status}). This page checks again in a moment;
        <a href="?job=${job.id}">check now</a>.</p>`
    : job.status === "succeeded" && job.artifactId !== null
      ? html`${
          job.purpose === "final"
            ? html`<p class="notice" role="status">Published: one unit used (${job.entitlement.source}).
                <a href="${downloadPath(job.artifactId)}" download>Download the PDF</a></p>`
            : html`<p class="hint">A preview uses no unit. <a href="${downloadPath(job.artifactId)}" download>Download this preview</a></p>`
        }
        <iframe class="pdf-frame" title="${what} PDF" src="${previewPath(job.artifactId)}"></iframe>`
      : html`<p class="error" role="alert">${what} ${job.status}${job.error ? html`: ${job.error.message} (${job.error.code})` : ""}</p>`
  return html`<section aria-labelledby="result" class="result">
    <h2 id="result">${what}</h2>
    ${state}
    ${warningsBesideLines(job.warnings, markdown)}
  </section>`
}

const editorPage = (view: EditorView) => {
  const { draft, member } = view
  const action = view.documentId === null ? "/app/documents" : `${documentPath(view.documentId)}/edit`
  const heading = view.documentId === null ? "New document" : `Edit: ${draft.title || "Untitled"}`
  return document({
    title: heading,
    member,
    path: "/app/documents",
    main: html`<h1>${heading}</h1>
      ${view.documentId === null ? "" : html`<p><a href="${documentPath(view.documentId)}">Revisions, jobs and downloads</a></p>`}
      ${view.basedOn ? html`<p class="hint">Options filled in from the custom template ${view.basedOn}.</p>` : ""}
      ${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ""}
      <div class="editor">
        <form method="post" action="${action}" class="editor-form">
          ${csrfField(member.session.csrfToken)}
          ${
            view.documentId === null
              ? html`<label for="title">Title</label>
                  <input id="title" name="title" type="text" maxlength="160" value="${draft.title}">`
              : ""
          }
          <label for="markdown">Markdown</label>
          <textarea id="markdown" name="markdown" rows="18" spellcheck="true" required>${draft.markdown}</textarea>
          ${templateChoice(draft)}
          <div class="field-row">
            <div>
              <label for="locale">Locale</label>
              <select id="locale" name="locale">${LOCALES.map((locale) => option(locale, locale, locale === draft.locale))}</select>
            </div>
            <div>
              <label for="filename">Filename</label>
              <input id="filename" name="filename" type="text" maxlength="200" value="${draft.filename}">
            </div>
          </div>
          <fieldset>
            <legend>Options</legend>
            <label for="pageNumbers">Page numbers</label>
            <select id="pageNumbers" name="pageNumbers">
              ${option("", "The template's default", draft.pageNumbers === "")}
              ${option("on", "On", draft.pageNumbers === "on")}
              ${option("off", "Off", draft.pageNumbers === "off")}
            </select>
            <label for="bodyTextColor">Body text colour</label>
            <input id="bodyTextColor" name="bodyTextColor" type="text" placeholder="#1a2b3c" value="${draft.bodyTextColor}">
            <label for="headingTextColor">Heading text colour</label>
            <input id="headingTextColor" name="headingTextColor" type="text" placeholder="#1a2b3c" value="${draft.headingTextColor}">
          </fieldset>
          <div class="actions">
            <button type="submit" name="intent" value="preview" class="button secondary">Preview</button>
            <button type="submit" name="intent" value="publish" class="button" aria-describedby="publish-cost">Publish</button>
          </div>
          <p id="publish-cost" class="hint">${view.publishCost}</p>
        </form>
        ${view.job ? jobPanel(view.job, draft.markdown) : ""}
      </div>`
  })
}

/** What `Publish` will use, said before it is used. */
const publishCost = (principal: Principal) =>
  Effect.map(
    Effect.flatMap(Ledger, (ledger) => ledger.usage(principal.accountId)),
    (usage) =>
      usage.webDaily && usage.webDaily.remaining > 0
        ? `Publishing uses 1 unit of today's web allowance (${usage.webDaily.remaining} left today); previews use none.`
        : usage.remaining > 0
          ? `Publishing uses 1 unit of your account (${usage.remaining} left this month); previews use none.`
          : "No unit is left this month: a publication will be refused. Previews use none."
  )

const render = (view: Omit<EditorView, "publishCost">, status = 200) =>
  Effect.map(publishCost(view.member.principal), (cost) => htmlResponse(editorPage({ ...view, publishCost: cost }), status))

// ---------------------------------------------------------------------------------------------
// Handlers

const searchParams = Effect.map(HttpServerRequest.HttpServerRequest, (request) => new URL(request.url, "http://x").searchParams)

/** GET /app/documents/new (`?customTemplate=` fills in a custom template's base and options). */
export const showNewDocument = withRefusalPages(
  Effect.gen(function* () {
    const member = yield* CurrentMember
    const customTemplateId = (yield* searchParams).get("customTemplate")
    if (customTemplateId === null) return yield* render({ member, documentId: null, draft: EMPTY })
    const found = /^[0-9a-f-]{36}$/i.test(customTemplateId)
      ? yield* (yield* CustomTemplates).findForOwner(member.principal.accountId, customTemplateId)
      : Option.none()
    if (Option.isNone(found))
      return yield* render({ member, documentId: null, draft: EMPTY, error: "That custom template no longer exists." }, 404)
    const { options, baseTemplateId, name } = found.value
    const draft: Draft = {
      ...EMPTY,
      templateId: baseTemplateId,
      pageNumbers: options.pageNumbers === undefined ? "" : options.pageNumbers ? "on" : "off",
      bodyTextColor: options.bodyTextColor ?? "",
      headingTextColor: options.headingTextColor ?? ""
    }
    return yield* render({ member, documentId: null, draft, basedOn: name })
  })
)

/** GET /app/documents/:id/edit: the latest revision, or `?revision=`, or the revision of `?job=` with that job's outcome. */
export const showEditor = (documentId: string) =>
  withRefusalPages(
    Effect.gen(function* () {
      const member = yield* CurrentMember
      const params = yield* searchParams
      const documents = yield* Documents
      const { document: found, latestRevision } = yield* documents.detail(member.principal, documentId)
      const jobId = params.get("job")
      const jobFound = jobId !== null && /^[0-9a-f-]{36}$/i.test(jobId) ? yield* (yield* Jobs).find(member.principal, jobId) : undefined
      // A job of another of the member's documents is not this page's to show.
      const job = jobFound?.documentId === documentId ? jobFound : undefined
      const wanted = job?.revisionId ?? params.get("revision")
      const revision =
        wanted !== null && wanted !== latestRevision?.id
          ? yield* documents.forRender(member.principal, documentId, wanted).pipe(Effect.map((found) => found.revision))
          : latestRevision
      const title = found.title ?? ""
      const draft = revision ? draftOfRevision(revision, title, job?.renderSpec.filename ?? EMPTY.filename) : { ...EMPTY, title }
      return yield* render({ member, documentId, draft, ...(job ? { job } : {}) })
    })
  )

/**
 * POST /app/documents and /app/documents/:id/edit: the draft becomes a document, or a new
 * revision when it differs from the latest, then is previewed or published; the browser is sent
 * to the editor showing the job. A refusal shows the editor again with the draft and the reason.
 */
export const saveDraft = (documentId: string | null) =>
  withRefusalPages(
    Effect.gen(function* () {
      const member = yield* CurrentMember
      const { principal } = member
      const form = yield* memberForm
      const draft = draftOfForm(form)
      const intent = form.get("intent") === "publish" ? "final" : "preview"
      const outcome = yield* Effect.either(
        Effect.gen(function* () {
          const admission = yield* Admission
          yield* admission.admit(intent === "final" ? "documents.render" : "documents.preview", intent === "final" ? "publish" : "preview")
          const documents = yield* Documents
          const latest = documentId === null ? null : (yield* documents.detail(principal, documentId)).latestRevision
          const request = yield* decodedRequest(CreateRevisionRequest, revisionRequestOf(draft, latest?.id ?? null))
          const revisionInput = yield* checkRevision(request)
          let target: { documentId: string; revisionId: string }
          if (documentId === null) {
            const title = yield* Effect.flatMap(
              decodedRequest(CreateDocumentRequest.fields.title, draft.title === "" ? null : draft.title),
              checkTitle
            )
            const created = yield* documents.create(principal, { taskId: "dashboard", title, revision: revisionInput })
            target = { documentId: created.document.id, revisionId: created.revision.id }
          } else if (latest !== null && sameContent(latest, request)) {
            target = { documentId, revisionId: latest.id }
          } else {
            const { revision } = yield* documents.revise(principal, documentId, revisionInput)
            target = { documentId, revisionId: revision.id }
          }
          const renderRequest = { revisionId: target.revisionId, output: { filename: draft.filename, format: "pdf" as const } }
          const requestSha256 = jcsSha256({ operation: `dashboard.${intent}`, documentId: target.documentId, body: renderRequest })
          const job = yield* renderRevision(principal, target.documentId, renderRequest, intent, "web", requestSha256, DASHBOARD_WAIT)
          return { documentId: target.documentId, job }
        })
      )
      if (Either.isRight(outcome)) return redirect(`${documentPath(outcome.right.documentId)}/edit?job=${outcome.right.job.id}`)
      const refusal = publishingError(outcome.left as PressroomError)
      // A document that is gone or not the member's is a page of its own; anything else is said beside the draft.
      if (refusal.httpStatus === 404 || refusal.httpStatus === 409) return yield* Effect.fail(outcome.left)
      const title =
        documentId === null ? draft.title : ((yield* (yield* Documents).detail(member.principal, documentId)).document.title ?? "")
      return yield* render(
        {
          member,
          documentId,
          draft: { ...draft, title },
          error: `${intent === "final" ? "Not published" : "Not previewed"}: ${refusal.message}`
        },
        refusal.httpStatus
      )
    })
  )
