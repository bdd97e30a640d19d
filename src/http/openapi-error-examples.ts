/**
 * An example for every error response of the OpenAPI document (issue 38): the body the server
 * answers, in the envelope of the operation's API (v2 with `contractVersion`, v1 and admin
 * without: shared/error-responses.ts), written by `errorBody` from the same error classes the
 * handlers fail with, so an example cannot drift from what is sent. One table gives each status
 * its error; a few rows name what a particular operation answers instead (its 409, its 422 with the
 * field to blame, its 503). test/http/openapi-reference.test.ts validates each against its schema.
 */

import { Plan } from "../entitlements/plan.ts"
import { CANCELLABLE_STATUSES } from "../jobs/job.ts"
import { dialectOf, errorBody } from "../shared/error-responses.ts"
import {
  type Answerable,
  ArtifactExpired,
  ArtifactUnavailable,
  Forbidden,
  IdempotencyConflict,
  InternalError,
  InvalidRequest,
  InvalidStateTransition,
  NotFound,
  QuotaExhausted,
  RateLimited,
  ServiceUnavailable,
  Unauthorized
} from "../shared/errors.ts"
import { notJson, payloadTooLarge } from "./transport-refusal.ts"

// biome-ignore lint/suspicious/noExplicitAny: the generated document is untyped JSON, walked by its known shape
type Json = Record<string, any>

/** The correlation id the examples quote; a response quotes its request's (`X-Correlation-Id`). */
const CORRELATION_ID = "5f0c6a2e-7d43-4b8e-9a61-3c2d8e4f7b90"

/** What a path's last parameter names, for its 404 (the resources the handlers say are not found). */
const RESOURCES: Readonly<Record<string, string>> = {
  documentId: "document",
  jobId: "job",
  artifactId: "artifact",
  templateId: "custom template",
  webhookId: "webhook subscription",
  deliveryId: "webhook delivery",
  accountId: "account",
  keyId: "key"
}

const parameters = (operation: Json): Array<Json> => operation.parameters ?? []
const takesIdempotencyKey = (operation: Json) =>
  parameters(operation).some((p) => p.in === "header" && String(p.name).toLowerCase() === "idempotency-key")
const lastPathParameter = (path: string): string | undefined => [...path.matchAll(/\{(\w+)\}/g)].at(-1)?.[1]

/** The scopes named in an operation's summary ("scope documents.render or documents.preview"). */
const scopesOf = (operation: Json): Array<string> => /scope ([\w.]+(?: or [\w.]+)*)/.exec(operation.summary ?? "")?.[1]?.split(" or ") ?? []

/** The error each status shows, from the operation and its path. */
const BY_STATUS: Readonly<Record<string, (operation: Json, path: string) => Answerable>> = {
  400: (operation, path) => {
    const parameter = lastPathParameter(path)
    return takesIdempotencyKey(operation)
      ? InvalidRequest.malformed("idempotency-key: is missing")
      : parameter && parameter in RESOURCES
        ? InvalidRequest.malformed(`${parameter}: Expected UUID, actual "q3-report"`)
        : InvalidRequest.malformed("the request is invalid")
  },
  401: (_, path) =>
    new Unauthorized({ message: path.startsWith("/admin/") ? "a valid admin token is required" : "a valid API key is required" }),
  402: () => new QuotaExhausted(),
  403: (operation) => new Forbidden({ scopes: scopesOf(operation) }),
  404: (_, path) => new NotFound({ resource: RESOURCES[lastPathParameter(path) ?? ""] ?? "custom template" }),
  409: () => new IdempotencyConflict({ message: "the idempotency key was already used with a different request", inProgress: false }),
  410: () => new ArtifactExpired(),
  413: () => payloadTooLarge,
  415: () => notJson,
  422: () => InvalidRequest.unprocessable("spec.templateId: unknown template 'executiv'", "spec.templateId"),
  429: () => new RateLimited({ retryAfterSeconds: 12 }),
  500: () => new InternalError(),
  503: () => new ServiceUnavailable({ message: "the database is unavailable; retry", retryAfterSeconds: 2 })
}

const deletedDocument = new InvalidStateTransition({ currentState: "deleting", expectedStates: ["active"] })
const disabledWebhook = new InvalidStateTransition({ currentState: "disabled", expectedStates: ["active"] })
const unknownTemplate = (field: string) => InvalidRequest.unprocessable(`${field}: unknown template 'executiv'`, field)
const notPdf = InvalidRequest.unprocessable("output.format: only pdf is produced", "output.format")

/** What an operation answers instead of its status's error: the state it refuses, the field it blames. */
const BY_OPERATION: Readonly<Record<string, Readonly<Record<string, Answerable>>>> = {
  "v1.convert": {
    422: unknownTemplate("templateId"),
    503: new ServiceUnavailable({ message: "the conversion did not finish in time; retry", retryAfterSeconds: 5 })
  },
  "documents.create": { 422: unknownTemplate("revision.spec.templateId") },
  "documents.createRevision": { 409: deletedDocument },
  "documents.createPreview": { 409: deletedDocument, 422: notPdf },
  "documents.createPublication": { 409: deletedDocument, 422: notPdf },
  "jobs.cancel": { 409: new InvalidStateTransition({ currentState: "succeeded", expectedStates: CANCELLABLE_STATUSES }) },
  "artifacts.download": { 503: new ArtifactUnavailable() },
  "artifactLinks.download": {
    403: new Forbidden({ scopes: [], reason: "the download link is malformed, altered or expired" }),
    503: new ArtifactUnavailable()
  },
  "artifactLinks.head": {
    403: new Forbidden({ scopes: [], reason: "the download link is malformed, altered or expired" }),
    503: new ArtifactUnavailable()
  },
  "templates.create": { 422: unknownTemplate("baseTemplateId") },
  "webhooks.create": { 422: InvalidRequest.unprocessable("endpoint: must be a valid https:// URL", "endpoint") },
  "webhooks.rotateSecret": { 409: disabledWebhook },
  "webhooks.disable": { 409: disabledWebhook },
  "webhooks.redeliver": { 409: disabledWebhook },
  "admin.createAccount": {
    422: InvalidRequest.unprocessable(`unknown plan 'enterprise'; one of ${Plan.literals.join(", ")}`, "plan")
  },
  "admin.createKey": { 422: InvalidRequest.unprocessable("expiresAt must be in the future", "expiresAt") },
  "admin.addCreditPacks": {
    422: InvalidRequest.unprocessable("the account's entitlement is unlimited; credit packs would add nothing")
  },
  "membersAdmin.invite": {
    409: new InvalidStateTransition({ currentState: "member_of_another_account", expectedStates: [] }),
    422: InvalidRequest.unprocessable("email is not an email address", "email")
  }
}

/** The body the operation at `path` answers with `status` when that is an error status, in its API's envelope. */
export const errorExample = (operation: Json, path: string, status: string): unknown => {
  const error = BY_OPERATION[operation.operationId]?.[status] ?? BY_STATUS[status]?.(operation, path)
  return error === undefined ? undefined : errorBody(error, CORRELATION_ID, dialectOf(path))
}
