/**
 * Templates (contract section 12): the catalog's 57 with their gallery images, each a start for a
 * new document; the account's custom templates (contract section 8): list, create, delete, and
 * "use", which opens the editor with the custom template's base and the options a revision can
 * carry (its paper and font family apply to v1 conversions, which name it).
 */
import { Effect } from "effect"
import { Admission } from "../../admission/admission.ts"
import { catalog, findTemplate } from "../../render/catalog.ts"
import { FONT_FAMILIES } from "../../render/common/font-families.ts"
import { CREATIVE_ACCENTS } from "../../render/common/options.ts"
import { PAPERS } from "../../render/common/overrides.ts"
import { NotFound, publishingError } from "../../shared/errors.ts"
import { CreateCustomTemplateRequest } from "../../templates/api.ts"
import type { CustomTemplate } from "../../templates/custom-template.ts"
import { toDefinition } from "../../templates/custom-template.ts"
import { CustomTemplates } from "../../templates/repository.ts"
import { csrfField } from "../csrf.ts"
import { decodedRequest } from "../decode.ts"
import { memberForm } from "../forms.ts"
import { galleryPath } from "../gallery.ts"
import { type Html, html } from "../html.ts"
import { document } from "../layout.ts"
import { CurrentMember, type SignedIn } from "../member-context.ts"
import { withRefusalPages } from "../page-errors.ts"
import { htmlResponse, redirect } from "../responses.ts"
import { showTime } from "../time.ts"

const select = (id: string, label: string, choices: ReadonlyArray<readonly [string, string]>) =>
  html`<label for="${id}">${label}</label>
    <select id="${id}" name="${id}">${choices.map(([value, text]) => html`<option value="${value}">${text}</option>`)}</select>`

const optionsText = (template: CustomTemplate) =>
  Object.entries(template.options)
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join(", ") || "none"

const customRow = (member: SignedIn, template: CustomTemplate) =>
  html`<tr>
    <td data-label="Name" id="custom-${template.id}">${template.name}</td>
    <td data-label="Base">${findTemplate(template.baseTemplateId)?.title ?? template.baseTemplateId}</td>
    <td data-label="Options">${optionsText(template)}</td>
    <td data-label="Created">${showTime(template.createdAt)}</td>
    <td data-label="Actions" class="row-actions">
      <a href="/app/documents/new?customTemplate=${template.id}" aria-describedby="custom-${template.id}">Use</a>
      <form method="post" action="/app/templates/custom/${template.id}/delete">
        ${csrfField(member.session.csrfToken)}
        <button type="submit" class="button danger" aria-describedby="custom-${template.id}">Delete</button>
      </form>
    </td>
  </tr>`

const templatesPage = (member: SignedIn, custom: ReadonlyArray<CustomTemplate>, top: Html | "" = "", status = 200) =>
  htmlResponse(
    document({
      title: "Templates",
      member,
      path: "/app/templates",
      main: html`<h1>Templates</h1>
        ${top}
        <section aria-labelledby="custom">
          <h2 id="custom">Custom templates</h2>
          ${
            custom.length === 0
              ? html`<p>No custom templates yet.</p>`
              : html`<div class="table-box"><table class="stack-table">
                  <thead><tr><th>Name</th><th>Base</th><th>Options</th><th>Created</th><th>Actions</th></tr></thead>
                  <tbody>${custom.map((template) => customRow(member, template))}</tbody>
                </table></div>`
          }
          <form method="post" action="/app/templates/custom" class="card">
            <h3>New custom template</h3>
            ${csrfField(member.session.csrfToken)}
            <label for="name">Name</label>
            <input id="name" name="name" type="text" maxlength="160" required>
            ${select(
              "baseTemplateId",
              "Base template",
              catalog.templates.map((template) => [template.id, template.title] as const)
            )}
            ${select("pageNumbers", "Page numbers", [
              ["", "The template's default"],
              ["on", "On"],
              ["off", "Off"]
            ])}
            <label for="bodyTextColor">Body text colour</label>
            <input id="bodyTextColor" name="bodyTextColor" type="text" placeholder="#1a2b3c">
            <label for="headingTextColor">Heading text colour</label>
            <input id="headingTextColor" name="headingTextColor" type="text" placeholder="#1a2b3c">
            ${select("creativeAccent", "Accent (creative templates)", [["", "The template's default"], ...CREATIVE_ACCENTS.map((a) => [a, a] as const)])}
            ${select("paper", "Paper", [["", "The template's default"], ...PAPERS.map((p) => [p, p] as const)])}
            ${select("fontFamily", "Font family", [["", "The template's default"], ...FONT_FAMILIES.map((f) => [f, f] as const)])}
            <div class="actions"><button type="submit" class="button">Create template</button></div>
          </form>
        </section>
        <section aria-labelledby="catalog">
          <h2 id="catalog">The catalog (${catalog.templates.length})</h2>
          <ul class="gallery">
            ${catalog.templates.map(
              (template) => html`<li class="card template-card">
                <img src="${galleryPath(template.id)}" alt="First page of the ${template.title} sample" width="160" height="226" loading="lazy">
                <h3>${template.title}</h3>
                <p><code>${template.id}</code></p>
                <p class="hint">${template.description}</p>
              </li>`
            )}
          </ul>
        </section>`
    }),
    status
  )

const admitted = (rateClass: "read" | "write") =>
  Effect.flatMap(Admission, (admission) => admission.admit(rateClass === "read" ? "documents.read" : "templates.manage", rateClass))

const listed = (member: SignedIn, top: Html | "" = "", status = 200) =>
  Effect.map(
    Effect.flatMap(CustomTemplates, (templates) => templates.list(member.principal.accountId)),
    (custom) => templatesPage(member, custom, top, status)
  )

export const showTemplates = withRefusalPages(
  Effect.gen(function* () {
    yield* admitted("read")
    return yield* listed(yield* CurrentMember)
  })
)

/** The form as the API's request: fields left at the template's default are left out. */
const requestOf = (form: URLSearchParams) => {
  const value = (name: string) => (form.get(name) ?? "").trim()
  const set = (name: string) => (value(name) === "" ? {} : { [name]: value(name) })
  return {
    name: value("name"),
    baseTemplateId: value("baseTemplateId"),
    options: {
      ...(value("pageNumbers") === "" ? {} : { pageNumbers: value("pageNumbers") === "on" }),
      ...set("bodyTextColor"),
      ...set("headingTextColor"),
      ...set("creativeAccent"),
      ...set("paper"),
      ...set("fontFamily")
    }
  }
}

export const createCustomTemplate = withRefusalPages(
  Effect.gen(function* () {
    const member = yield* CurrentMember
    const form = yield* memberForm
    yield* admitted("write")
    const created = yield* Effect.either(
      decodedRequest(CreateCustomTemplateRequest, requestOf(form)).pipe(
        Effect.flatMap(toDefinition),
        Effect.flatMap((definition) => Effect.flatMap(CustomTemplates, (templates) => templates.create(member.principal, definition)))
      )
    )
    if (created._tag === "Left") {
      return yield* listed(
        member,
        html`<p class="error" role="alert">The template was not created: ${publishingError(created.left).message}.</p>`,
        422
      )
    }
    return yield* listed(member, html`<p class="notice" role="status">Custom template “${created.right.name}” created.</p>`)
  })
)

export const deleteCustomTemplate = (templateId: string) =>
  withRefusalPages(
    Effect.gen(function* () {
      const member = yield* CurrentMember
      yield* memberForm
      yield* admitted("write")
      const deleted = yield* Effect.flatMap(CustomTemplates, (templates) => templates.delete(member.principal, templateId))
      if (deleted._tag === "None") return yield* Effect.fail(new NotFound({ resource: "custom template" }))
      return redirect("/app/templates")
    })
  )
