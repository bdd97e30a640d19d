/**
 * API keys (contract section 12): the account's keys; a new key (name, scopes, environment,
 * expiry) whose secret this one response shows, with a copy button, and no later page, log or
 * row ever holds; revocation after a confirmation. Keys are made and revoked through the
 * operators' `AccountAdministration`, so the dashboard accepts and refuses what the admin API does,
 * and a key made here records the member who made it.
 */
import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, ParseResult, Schema } from "effect"
import type { ApiKey } from "../../accounts/api-key-resource.ts"
import { CreateKeyRequest } from "../../accounts/administration-bodies.ts"
import { AccountAdministration } from "../../accounts/administration.ts"
import { ALL_SCOPES, CurrentPrincipal, KeyEnvironment, memberOf } from "../../accounts/principal.ts"
import { InvalidRequest, NotFound } from "../../shared/errors.ts"
import { csrfField } from "../csrf.ts"
import { memberForm } from "../forms.ts"
import { type Html, html } from "../html.ts"
import { document } from "../layout.ts"
import { CurrentMember } from "../member-context.ts"
import { htmlResponse, redirect } from "../responses.ts"

/** A timestamp to the minute; the page says once that times are UTC. */
const when = (timestamp: string | null, none: string) => (timestamp === null ? none : timestamp.slice(0, 16).replace("T", " "))

const keyRow = (key: ApiKey) =>
  html`<tr class="${key.revokedAt ? "revoked" : ""}">
    <td data-label="Name" class="name" id="key-${key.id}">${key.name ?? "(unnamed)"}</td>
    <td data-label="Prefix" class="nowrap"><code>${key.prefix}…</code></td>
    <td data-label="Scopes"><span class="tags">${key.scopes.map((scope) => html`<span class="tag">${scope}</span>`)}</span></td>
    <td data-label="Environment">${key.environment}</td>
    <td data-label="Created">${when(key.createdAt, "")}</td>
    <td data-label="Last used">${when(key.lastUsedAt, "never")}</td>
    <td data-label="Expires">${when(key.expiresAt, "never")}</td>
    <td data-label="Revoked">${when(key.revokedAt, "no")}</td>
    <td data-label="Actions">${
      key.revokedAt
        ? ""
        : html`<form method="get" action="/app/keys/${key.id}/revoke">
          <button type="submit" class="button secondary" aria-describedby="key-${key.id}">Revoke</button>
        </form>`
    }</td>
  </tr>`

const keysPage = (member: Parameters<typeof document>[0]["member"] & {}, keys: ReadonlyArray<ApiKey>, top: Html | "" = "", status = 200) =>
  htmlResponse(
    document({
      title: "API keys",
      member,
      path: "/app/keys",
      main: html`<h1>API keys</h1>
        ${top}
        <section aria-labelledby="list">
          <h2 id="list">Keys of this account</h2>
          <p class="hint">Times are UTC. “Last used” is kept to the minute.</p>
          ${
            keys.length === 0
              ? html`<p>No keys yet.</p>`
              : html`<div class="table-box"><table class="stack-table">
                <thead><tr><th>Name</th><th>Prefix</th><th>Scopes</th><th>Environment</th><th>Created</th><th>Last used</th><th>Expires</th><th>Revoked</th><th>Actions</th></tr></thead>
                <tbody>${keys.map(keyRow)}</tbody>
              </table></div>`
          }
        </section>
        <section aria-labelledby="create">
          <h2 id="create">Create a key</h2>
          <form method="post" action="/app/keys" class="card">
            ${csrfField(member.session.csrfToken)}
            <label for="key-name">Key name</label>
            <input id="key-name" name="name" type="text" maxlength="100" required aria-describedby="key-name-hint">
            <p class="hint" id="key-name-hint">What the key is for, to tell it apart later (“CI”, “billing service”).</p>
            <fieldset>
              <legend>Scopes</legend>
              ${ALL_SCOPES.map((scope) => html`<label><input type="checkbox" name="scopes" value="${scope}"> ${scope}</label>`)}
            </fieldset>
            <fieldset>
              <legend>Environment</legend>
              ${KeyEnvironment.literals.map(
                (environment, i) =>
                  html`<label><input type="radio" name="environment" value="${environment}"${i === 0 ? html` checked` : ""}> ${environment}</label>`
              )}
            </fieldset>
            <label for="key-expires">Expires (UTC, optional)</label>
            <input id="key-expires" name="expiresAt" type="datetime-local">
            <div class="actions"><button type="submit" class="button">Create key</button></div>
          </form>
        </section>`
    }),
    status
  )

/** The secret of a key just made, shown this once. */
const secretNotice = (key: ApiKey, secret: string) =>
  html`<div class="notice" role="status">
    <p><strong>Key “${key.name ?? key.prefix}” created.</strong> Copy its secret now: it is shown only this once and cannot be shown again.</p>
    <label for="new-secret">Secret</label>
    <div class="secret">
      <input id="new-secret" type="text" readonly value="${secret}" data-select-on-focus>
      <button type="button" class="button" data-copy="new-secret" data-copy-status="copy-status">Copy</button>
    </div>
    <p class="hint" id="copy-status" aria-live="polite"></p>
  </div>`

export const listKeys = Effect.gen(function* () {
  const member = yield* CurrentMember
  const { keys } = yield* (yield* AccountAdministration).listKeys((yield* CurrentPrincipal).accountId)
  const revoked = new URL((yield* HttpServerRequest.HttpServerRequest).url, "http://x").searchParams.has("revoked")
  return keysPage(member, keys, revoked ? html`<p class="notice" role="status">The key is revoked: it no longer opens anything.</p>` : "")
})

/** A `datetime-local` value, read as UTC. */
const expiryOf = (text: string) => (text === "" ? null : `${text.length === 16 ? `${text}:00` : text}Z`)

export const createKey = Effect.gen(function* () {
  const form = yield* memberForm
  const member = yield* CurrentMember
  const principal = yield* CurrentPrincipal
  const admin = yield* AccountAdministration
  const request = {
    name: (form.get("name") ?? "").trim() || null,
    scopes: form.getAll("scopes"),
    environment: form.get("environment") ?? undefined,
    expiresAt: expiryOf(form.get("expiresAt") ?? "")
  }
  const created = yield* Schema.decodeUnknown(CreateKeyRequest)(request).pipe(
    Effect.mapError((error) => InvalidRequest.malformed(ParseResult.TreeFormatter.formatErrorSync(error).split("\n").at(-1)!.trim())),
    Effect.flatMap((decoded) => admin.createKey(principal.accountId, decoded, memberOf(principal))),
    Effect.either
  )
  const { keys } = yield* admin.listKeys(principal.accountId)
  if (created._tag === "Left") {
    const message = created.left._tag === "InvalidRequest" ? created.left.message : "the account is gone"
    return keysPage(member, keys, html`<p class="error" role="alert">The key was not created: ${message}.</p>`, 422)
  }
  return keysPage(member, keys, secretNotice(created.right.key, created.right.secret))
})

const keyIdParam = Effect.flatMap(HttpRouter.params, (params) =>
  Schema.is(Schema.UUID)(params.keyId) ? Effect.succeed(params.keyId) : Effect.fail(new NotFound({ resource: "key" }))
)

/** The key `keyId` of the member's account; 404 for any other, as in the API. */
const ownKey = Effect.gen(function* () {
  const keyId = yield* keyIdParam
  const { keys } = yield* (yield* AccountAdministration).listKeys((yield* CurrentPrincipal).accountId)
  const key = keys.find((key) => key.id === keyId)
  return key ?? (yield* Effect.fail(new NotFound({ resource: "key" })))
})

export const confirmRevoke = Effect.gen(function* () {
  const member = yield* CurrentMember
  const key = yield* ownKey
  return htmlResponse(
    document({
      title: "Revoke a key",
      member,
      path: "/app/keys",
      main: html`<div class="narrow card">
        <h1>Revoke “${key.name ?? key.prefix}”?</h1>
        <p>Requests made with <code>${key.prefix}…</code> will be refused from the moment you revoke it. This cannot be undone.</p>
        <form method="post" action="/app/keys/${key.id}/revoke">
          ${csrfField(member.session.csrfToken)}
          <div class="actions">
            <button type="submit" class="button danger">Revoke</button>
            <a href="/app/keys">Cancel</a>
          </div>
        </form>
      </div>`
    })
  )
})

export const revokeKey = Effect.gen(function* () {
  yield* memberForm
  const keyId = yield* keyIdParam
  const principal = yield* CurrentPrincipal
  yield* (yield* AccountAdministration).revokeKey(keyId, principal.accountId, memberOf(principal))
  return redirect("/app/keys?revoked=1")
})
