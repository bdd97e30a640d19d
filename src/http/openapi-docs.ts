/**
 * The reader's part of the OpenAPI document (issue 38): the introduction, a description of every
 * tag, a summary and a description for each operation that does not carry its own, and request and
 * response examples (openapi-examples.ts). An endpoint's own annotations win; this fills only what
 * they leave empty, so the reference at /docs never shows an operation by its path alone.
 */

import { withExamples } from "./openapi-examples.ts"

// biome-ignore lint/suspicious/noExplicitAny: the generated document is untyped JSON, walked by its known shape
type Json = Record<string, any>

const INTRODUCTION = `Markdown in, reproducible PDFs out, through 57 named Typst templates in twelve locales.

## Authentication and scopes

Every \`/api/\` request carries an API key: \`Authorization: Bearer pk_live_…\` (or \`pk_test_…\`, whichever environment the server accepts). A missing, malformed, unknown, expired or revoked key is 401; a key without the operation's scope is 403. Each operation's summary names its scope:

| scope | allows |
|---|---|
| \`documents.render\` | v1 convert; create documents and revisions; publish; cancel a publication; delete a document |
| \`documents.preview\` | create documents and revisions; preview; cancel a preview |
| \`documents.read\` | list and get documents, jobs and custom templates; download artifacts; make download links |
| \`templates.manage\` | create and delete custom templates |
| \`webhooks.manage\` | webhook subscriptions, their deliveries and redelivery |

A key made with \`{}\` (no \`scopes\`) has every scope. The admin API (\`/admin/v1/\`) takes the operator's admin token instead, and no API key.

## Units

A publication or a v1 conversion that succeeds uses one unit of the account's monthly allowance, then its credit packs; a preview uses none. The unit is reserved when the job is admitted and released when it fails or is cancelled. None left: 402 \`quota_exhausted\`.

## Idempotency and retries

Every v2 mutation takes an \`Idempotency-Key\` header (8 to 200 characters; a UUID is best). Sending the same key and body again replays the first answer with \`Idempotency-Replayed: true\` and never starts a second job; the same key with another body is 409 \`idempotency_conflict\`. So after a timeout or a lost connection, send the request again with the same key. An error whose \`retryable\` is true (429, 503, 500) may be retried after \`Retry-After\` seconds; others will fail the same way again.

## Polling

A preview or publication answers 200 with the ended job when it ends within the server's synchronous threshold (2 s by default), else 202 with the job \`queued\` or \`running\` and \`artifact: null\`. Poll \`links.self\` (\`GET /api/v2/jobs/{jobId}\`), about once a second, until \`job.status\` is \`succeeded\`, \`failed\` or \`cancelled\`; then download \`artifact.id\`, or subscribe to webhooks instead of polling.

## Errors

Every error is one envelope: \`{ contractVersion, error: { category, code, httpStatus, message, retryable, details } }\` on v2 (\`{ error }\` on v1 and admin). \`details.correlationId\` equals the response's \`X-Correlation-Id\`: quote it when asking for help. 400 is a malformed request, 422 content that cannot be accepted (\`details.field\` names it), 404 a missing resource or another account's, 409 a conflict with the resource's state or an earlier request. No error body carries a stack trace.

## Webhooks

Subscribe an \`https://\` endpoint to \`job.succeeded\`, \`job.failed\` and \`job.cancelled\`: each v2 job that ends is delivered as a \`POST\` signed as Standard Webhooks v1 (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`), retried until the endpoint answers 2xx within 15 s. Verify it with the \`standardwebhooks\` package on the raw body, and deduplicate on \`webhook-id\`.`

const TAGS: Readonly<Record<string, string>> = {
  v1: "Legacy single-call conversion: Markdown in, PDF out, in one request that waits for the render.",
  Documents:
    "A document holds immutable revisions (Markdown and a render spec). Previews and publications render a revision through a job; a document is deleted 30 days after its last activity or by DELETE.",
  Jobs: "Every preview and publication is a job: queued, running, then succeeded, failed or cancelled. Poll a job here until it has ended.",
  Artifacts:
    "The PDF of a succeeded job: downloaded with the API key, or through a signed link that needs none. A preview's lives 15 minutes, a publication's seven days.",
  "Artifact links": "Downloads through a signed link made by POST /api/v2/artifacts/{artifactId}/links: no API key, at most five minutes.",
  "Custom templates": "An account's saved options and overrides on a catalog template, used by v1 convert through customTemplateId.",
  Webhooks:
    "Subscriptions that receive a signed POST when a v2 job ends, their signing secrets, and (an extension of the specification) the history of their deliveries and redelivery.",
  Operations: "Liveness, readiness, Prometheus metrics and this document. No key needed."
}

const SUMMARIES: Readonly<Record<string, string>> = {
  "v1.convert": "Convert Markdown to a PDF in one request (scope documents.render); uses one unit",
  "admin.createAccount": "Create an account with a plan (admin token)",
  "admin.getAccount": "Get an account and its usage this month (admin token)",
  "admin.createKey": "Create an API key for an account; {} gives every scope, and the key is shown once (admin token)",
  "admin.listKeys": "List an account's API keys (admin token)",
  "admin.revokeKey": "Revoke an API key (admin token)",
  "admin.addCreditPacks": "Add credit packs of 250 units to an account (admin token)",
  "membersAdmin.invite": "Invite a person into an account's dashboard (admin token)",
  "ops.healthz": "Liveness: the process answers",
  "ops.readyz": "Readiness: database reachable, migrations applied, fonts verified, workers warm; 503 until then",
  "ops.metrics": "Prometheus metrics: requests, renders, jobs, queue, units, workers, webhook deliveries",
  "ops.openapi": "This OpenAPI 3.1 document"
}

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  "v1.convert":
    "Renders the Markdown with a catalog template (`templateId`, default `clean`) or an account's custom template (`customTemplateId`) and answers the PDF itself, once it is ready. A successful conversion uses one unit; a failed one (422 `rendering_failed`), a refused request or a client that disconnects costs nothing. No Idempotency-Key: a conversion sent again is typeset again, unless its bytes can be reused.",
  "documents.create":
    "Creates a document and its first revision: the Markdown (at most 200,000 characters) and the render spec (`locale`, `templateId`, `options`). Nothing is rendered yet: preview or publish the revision next. `taskId` is yours, to find the document again.",
  "documents.list":
    "The owner's documents, newest first, deleted ones left out. Page with `limit` (1 to 100) and the `nextCursor` of the previous page.",
  "documents.get": "A document and its latest revision. Another account's document answers 404, as a missing one does.",
  "documents.delete":
    "Starts the deletion: queued jobs are cancelled, running ones stopped (their units released), artifacts answer 410 at once; the Markdown and the PDFs are removed once no job runs. A repeated DELETE answers `already_deleting` or `already_deleted`.",
  "documents.createRevision":
    "Adds an immutable revision to the document; `sequence` counts 1, 2, 3 … `parentRevisionId` must be null or one of this document's revisions (422). A deleted or deleting document refuses it with 409.",
  "documents.createPreview":
    "Renders the revision into a private PDF kept 15 minutes, using no unit. Answers 200 with the ended job when it ends within the synchronous threshold (2 s by default), else 202 with the job queued or running: poll `links.self`.",
  "documents.createPublication":
    "Renders the revision into the PDF to keep (seven days) and uses one unit, reserved now and released if the job fails or is cancelled. A revision just previewed reuses the preview's bytes. 200 with the ended job, or 202 while it runs: poll `links.self`. 402 when no unit is left.",
  "jobs.get":
    "The job with its status, error, provenance and retention, its artifact once it has succeeded (size, pages, SHA-256, `downloadPath`), its links and up to 100 warnings. Poll it after a 202 until `status` is `succeeded`, `failed` or `cancelled`.",
  "jobs.cancel":
    "Cancels a queued job at once, or stops a running render. 200 once the job has ended (cancelled, or done before the cancel reached it), 202 while the render stops. A cancelled job's unit is released. The body is empty or `{}`.",
  "artifacts.download":
    "The PDF, with `Content-Disposition` and an `ETag` (its SHA-256): send it back as `If-None-Match` for a 304. 410 `artifact_expired` once the artifact has expired or its document was deleted.",
  "artifacts.createLink":
    "Mints a signed URL (`href`) that downloads the PDF without a key, valid `PRESSROOM_LINK_TTL_SECONDS` (300 at most) and never past the artifact's own expiry. Nothing is stored: any process of a cluster serves it. No Idempotency-Key is needed.",
  "artifactLinks.download":
    "The PDF behind a link made by `POST /api/v2/artifacts/{artifactId}/links`, with no API key. An altered, malformed or expired link is 403 and serves no bytes; an expired artifact is 410.",
  "artifactLinks.head": "The answer of a download by link without its body: whether the link still works.",
  "templates.create":
    "Saves options and overrides (`paper`, `fontFamily`) on a catalog template under a name, for v1 convert's `customTemplateId`. The request's own options win over the template's.",
  "templates.list": "The account's custom templates, deleted ones left out.",
  "templates.get": "One custom template. Another account's answers 404.",
  "templates.delete": "Deletes the custom template; `deletedAt` is set and later conversions naming it answer 404.",
  "webhooks.create":
    "Subscribes an `https://` endpoint to 1 to 3 of `job.succeeded`, `job.failed` and `job.cancelled`. The answer holds the `signingSecret` (`whsec_…`), shown only here and in a replay of this request: keep it to verify deliveries (Standard Webhooks). At most `PRESSROOM_WEBHOOK_MAX_SUBSCRIPTIONS` (20) active subscriptions.",
  "webhooks.list":
    "The owner's subscriptions, newest first, disabled ones included, each with its current secret's version and fingerprint but never the secret.",
  "webhooks.rotateSecret":
    "Makes a new signing secret of the next version, shown only in this answer. The previous one keeps signing beside it for `PRESSROOM_WEBHOOK_ROTATION_OVERLAP_SECONDS` (24 h), so deliveries carry both signatures meanwhile.",
  "webhooks.disable":
    "Stops the subscription: no more deliveries, and those still pending are dropped. It cannot be enabled again; create another.",
  "admin.createAccount":
    "An account with a plan: `free` (25 units a month), `monthly` (500), `yearly` (1,000), `credits` (0, credit packs only) or `admin` (unlimited); `monthlyUnits` overrides the plan's figure.",
  "admin.getAccount":
    "The account and its usage this UTC month: units used, reserved by running jobs and remaining, and the credit-pack units left.",
  "admin.createKey":
    "An API key for the account, shown once in `secret` (only its SHA-256 is kept). `{}` gives a key with every scope in the environment the server accepts; `scopes` narrows it (at least one), `expiresAt` ends it.",
  "admin.listKeys":
    "The account's keys, newest first and revoked ones included, each with its prefix, scopes, environment, expiry and last use, but never the key itself, which only its creation showed.",
  "admin.revokeKey": "The key stops working at once: every request with it is 401.",
  "admin.addCreditPacks": "Adds packs of 250 units, used after the monthly allowance; they never expire.",
  "membersAdmin.invite":
    "Makes a single-use invitation for the email and answers its URL, the only copy of its token: the person opens it within 72 hours to choose a password and sign in to the dashboard. An email already a member of another account is 409.",
  "ops.healthz": "200 while the process answers, whatever its dependencies.",
  "ops.readyz":
    "200 once the database is reachable, migrations are applied, the fonts verified and the render workers warm; 503 `not_ready` otherwise, with the checks.",
  "ops.metrics":
    "Prometheus text: requests by route and status, render durations, jobs by status, queue depth, units by state, worker replacements and webhook deliveries.",
  "ops.openapi": "This document, generated from the schemas the server validates with."
}

/** The document with the introduction, every tag's description, every operation's summary and the examples. */
export const describeForReaders = (spec: Json): Json => {
  const info = { ...spec.info, description: INTRODUCTION }
  const tags = (spec.tags ?? []).map((tag: Json) => ({ ...tag, description: tag.description ?? TAGS[tag.name] }))
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) =>
        operation && typeof operation === "object" && "operationId" in operation
          ? [
              method,
              {
                ...operation,
                summary: operation.summary || SUMMARIES[operation.operationId],
                description: operation.description || DESCRIPTIONS[operation.operationId]
              }
            ]
          : [method, operation]
      )
    )
  }
  return withExamples({ ...spec, info, tags, paths })
}
