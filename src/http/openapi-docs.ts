/**
 * The reader's part of the OpenAPI document (issue 38): the introduction, a description of every
 * tag, a summary for each operation that does not carry its own `OpenApi.Summary`, and request
 * examples (openapi-examples.ts). An endpoint's own annotations win; this fills only what they
 * leave empty, so the reference at /docs never shows an operation by its path alone.
 */

import { withRequestExamples } from "./openapi-examples.ts"

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
  "admin.revokeKey": "Revoke an API key (admin token)",
  "admin.addCreditPacks": "Add credit packs of 250 units to an account (admin token)",
  "ops.healthz": "Liveness: the process answers",
  "ops.readyz": "Readiness: database reachable, migrations applied, fonts verified, workers warm; 503 until then",
  "ops.metrics": "Prometheus metrics: requests, renders, jobs, queue, units, workers, webhook deliveries",
  "ops.openapi": "This OpenAPI 3.1 document"
}

/** The document with the introduction, every tag's description, every operation's summary and request examples. */
export const describeForReaders = (spec: Json): Json => {
  const info = { ...spec.info, description: INTRODUCTION }
  const tags = (spec.tags ?? []).map((tag: Json) => ({ ...tag, description: tag.description ?? TAGS[tag.name] }))
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) =>
        operation && typeof operation === "object" && "operationId" in operation && !operation.summary && SUMMARIES[operation.operationId]
          ? [method, { ...operation, summary: SUMMARIES[operation.operationId] }]
          : [method, operation]
      )
    )
  }
  return withRequestExamples({ ...spec, info, tags, paths })
}
