/**
 * A response example for every JSON success response (issue 38), and for the one error response
 * that is not an error envelope (a readiness probe's 503), by operationId and status, so the
 * reference shows what an answer looks like rather than a skeleton of its schema. Written by hand
 * around one story (the Q3 report of openapi-examples.ts: created, revised, previewed, published)
 * from the small fixtures below; test/http/openapi-reference.test.ts validates each against its
 * response's schema. PDF bodies, 204 and 304 have none; the error envelopes' examples are
 * openapi-error-examples.ts'.
 */

const contractVersion = "publishing.lifecycle.v1"
const baseUrl = "https://pressroom.example.com"

const accountId = "3b241101-e2bb-4255-8caf-4136c566a962"
const documentId = "9b2e4f61-8d3a-4c1e-9f7b-2a5d6c8e0f13"
const firstRevisionId = "0f8fad5b-d9cb-469f-a165-70867728950e"
const revisionId = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
const previewJobId = "0deec310-81bf-4924-ac90-1273897eab2c"
const publicationJobId = "4b16d455-a536-4add-a8d2-02df131fefbe"
const previewArtifactId = "b58685a7-0407-4648-b115-24a3d9766ead"
const artifactId = "7b927e33-5a6c-485f-8ba7-f2f7ec1a2057"
const templateId = "2b055e28-6acc-455d-98a8-cae59a155281"
const webhookId = "f81cefb8-f0c5-4bbe-bbfe-c8c11f76a2d0"
const deliveryId = "1adc0031-a641-4493-8071-6345dddb83f5"
const keyId = "705ebcc8-8a4f-41cb-ba74-7f0624a4de71"

const retention = (expiresAt: string) => ({ policy: "managed_default", expiresAt, deleteRequestedAt: null, deletedAt: null })

const document = {
  id: documentId,
  taskId: "q3-report",
  title: "Q3 report",
  locale: "en",
  status: "active",
  latestRevisionId: revisionId,
  retention: retention("2026-12-27T09:25:13.377Z"),
  createdAt: "2026-11-27T09:14:03.412Z",
  updatedAt: "2026-11-27T09:20:41.087Z",
  lastActivityAt: "2026-11-27T09:25:13.377Z"
}
const documentLinks = {
  self: `/api/v2/documents/${documentId}`,
  revisions: `/api/v2/documents/${documentId}/revisions`,
  preview: `/api/v2/documents/${documentId}/previews`,
  publish: `/api/v2/documents/${documentId}/publishes`
}
const firstRevision = {
  id: firstRevisionId,
  documentId,
  parentRevisionId: null,
  sequence: 1,
  sourceBytes: 34,
  sourceSha256: "0572351c59a28641dd87ae10fa11f7f62f60182cc359c053528c8264001e70ef",
  specSha256: "d4f02eaafd1a9e9de7d10972ca8e47fa7a985825c3c9c1e249c72683cb3e4f19",
  createdAt: "2026-11-27T09:14:03.412Z"
}
const revision = {
  ...firstRevision,
  id: revisionId,
  parentRevisionId: firstRevisionId,
  sequence: 2,
  sourceBytes: 50,
  sourceSha256: "bf4c0fd748a4a8cfe9dfb08826fe6ba81eeb5f131691072c9d6ab54384366512",
  createdAt: "2026-11-27T09:20:41.087Z"
}

/** What admission knows; the render fills in the template's, fonts' and engine's hashes. */
const admittedProvenance = {
  assetSetSha256: null,
  catalogSha256: "652f55016243bf1b9f1bbea46d5749ef892dbe394e46de9d66ab1aacf0b4af57",
  fontSetSha256: null,
  manifestSha256: null,
  renderOptionsSha256: null,
  rendererReleaseChecksum: null,
  templateDefinitionSha256: null,
  templateReleaseSha256: null,
  optionsSha256: "a793ab8fcc2afce5e42b3044090719ddaff19741697d93b3b7f36838dd5e825c",
  requestSha256: "1f58b9145b24d108d7ac38887338b3ea3229833b9c1e418250343f907bfd1047",
  sourceSha256: revision.sourceSha256,
  catalogVersion: "2026-07-22.1",
  rendererVersion: "pressroom 0.2.0",
  engineVersion: null,
  channel: "rest_v2",
  locale: "en",
  templateId: "executive",
  templateReleaseId: null,
  synthetic: false
}
const renderedProvenance = {
  ...admittedProvenance,
  assetSetSha256: "8bf729ffe074caee622c02928173467e658e19e28233cff8a445819e3cae4d50",
  fontSetSha256: "8d50c2feb7ab837497cb1244199c19ae6d28256c81d197e7446fd6e55a564f14",
  manifestSha256: "05b3abf2579a5eb66403cd78be557fd860633a1fe2103c7642030defe32c657f",
  renderOptionsSha256: "087211a11f73e838c3a85ec868f04a6d4fffa851c2353759b6df92b616fcc29f",
  rendererReleaseChecksum: "a4d451ec23463726f72c43d64c710968f6b602cd653b4de8adee1b556240a829",
  templateDefinitionSha256: "4ed4810d745766c4b59a8d637f1520edf3cbb404b9fec9892da3e28ea7150eed",
  templateReleaseSha256: "7894ea748db4041812073872c7c70378b7011f668d452df7d7ccbcc34bb60565",
  engineVersion: "typst 0.14.2 (typst.ts 0.7.0, native)"
}

/** The publication of revision 2, ended: one unit of the monthly allowance, kept seven days. */
const publication = {
  id: publicationJobId,
  documentId,
  revisionId,
  artifactId,
  purpose: "final",
  status: "succeeded",
  attemptCount: 1,
  acceptedAt: "2026-11-27T09:25:12.502Z",
  queuedAt: "2026-11-27T09:25:12.509Z",
  startedAt: "2026-11-27T09:25:12.530Z",
  completedAt: "2026-11-27T09:25:13.377Z",
  requestSha256: admittedProvenance.requestSha256,
  entitlement: {
    capturedAt: "2026-11-27T09:25:12.502Z",
    catalogVersion: "2026-07-22.1",
    plan: "monthly",
    source: "api_monthly",
    units: 1
  },
  provenance: renderedProvenance,
  error: null,
  outputFormat: "pdf",
  retention: retention("2026-12-04T09:25:13.377Z")
}
const preview = {
  ...publication,
  id: previewJobId,
  artifactId: previewArtifactId,
  purpose: "preview",
  acceptedAt: "2026-11-27T09:21:05.233Z",
  queuedAt: "2026-11-27T09:21:05.241Z",
  startedAt: "2026-11-27T09:21:05.260Z",
  completedAt: "2026-11-27T09:21:06.118Z",
  entitlement: { ...publication.entitlement, capturedAt: "2026-11-27T09:21:05.233Z", units: 0 },
  retention: retention("2026-11-27T09:36:06.118Z")
}

/** A job before a worker claimed it, as a 202 shows it: its retention counts from admission. */
const pending = (job: typeof publication, expiresAt: string) => ({
  ...job,
  artifactId: null,
  status: "queued",
  attemptCount: 0,
  startedAt: null,
  completedAt: null,
  provenance: admittedProvenance,
  retention: retention(expiresAt)
})
const queued = pending(publication, "2026-12-04T09:25:12.502Z")

/** A publication of a revision just previewed reuses the preview's bytes: one PDF, one SHA-256. */
const pdfSha256 = "c35b21d6ca39aa7cc3b79a705d989f1a6e88b99ab43988d74048799e3db926a3"

const artifactOf = (job: typeof publication, id: string) => ({
  id,
  jobId: job.id,
  revisionId,
  status: "available",
  filename: "q3-report.pdf",
  bytes: 48213,
  pageCount: 2,
  sha256: pdfSha256,
  createdAt: job.completedAt,
  finalizedAt: job.completedAt,
  format: "pdf",
  contentType: "application/pdf",
  downloadPath: `/api/v2/artifacts/${id}/download`,
  retention: job.retention
})
const jobResponse = (job: Record<string, unknown> & { id: string }, artifact: unknown) => ({
  contractVersion,
  job,
  artifact,
  links: { cancel: `/api/v2/jobs/${job.id}/cancel`, self: `/api/v2/jobs/${job.id}` },
  warnings: []
})
const published = jobResponse(publication, artifactOf(publication, artifactId))
const previewed = jobResponse(preview, artifactOf(preview, previewArtifactId))
const cancelled = jobResponse(
  {
    ...queued,
    status: "cancelled",
    completedAt: "2026-11-27T09:25:12.871Z",
    error: { category: "conflict", code: "job_cancelled", httpStatus: 409, message: "the job was cancelled", retryable: false },
    retention: retention("2026-12-04T09:25:12.871Z")
  },
  null
)

const template = {
  id: templateId,
  name: "Acme board report",
  baseTemplateId: "executive",
  options: { pageNumbers: true, headingTextColor: "#0a3d62", paper: "us-letter" },
  createdAt: "2026-11-20T14:02:37.915Z",
  deletedAt: null
}

const signingSecret = {
  version: 1,
  fingerprint: "d3a3cf287103a314",
  signingSecret: "whsec_cJSUmE+FFqsZ8w+nxwG+YcOZyum2xcb0xvTxcSVa7p4=",
  createdAt: "2026-11-21T10:48:19.604Z"
}
const subscription = {
  id: webhookId,
  endpoint: "https://hooks.example.com/pressroom",
  description: "Billing service",
  eventTypes: ["job.succeeded", "job.failed"],
  status: "active",
  disabledAt: null,
  currentSecretVersion: 1,
  currentSecretFingerprint: signingSecret.fingerprint,
  createdAt: signingSecret.createdAt,
  updatedAt: signingSecret.createdAt
}
const delivery = {
  id: deliveryId,
  eventType: "job.succeeded",
  jobId: publicationJobId,
  status: "delivered",
  attemptCount: 2,
  nextAttemptAt: null,
  attempts: [
    {
      attempt: 1,
      startedAt: "2026-11-27T09:25:13.402Z",
      durationMs: 15003,
      statusCode: null,
      failureReason: "timeout",
      responseExcerpt: null
    },
    { attempt: 2, startedAt: "2026-11-27T09:25:33.517Z", durationMs: 86, statusCode: 204, failureReason: null, responseExcerpt: null }
  ],
  createdAt: "2026-11-27T09:25:13.391Z",
  updatedAt: "2026-11-27T09:25:33.603Z"
}

const account = { id: accountId, name: "Acme", plan: "monthly", monthlyUnits: null, createdAt: "2026-11-02T08:30:00.000Z" }
const usage = { periodStart: "2026-11-01T00:00:00.000Z", used: 37, reserved: 1, remaining: 962, creditUnits: 500 }
const key = {
  id: keyId,
  name: null,
  prefix: "pk_live_8ac3",
  scopes: ["documents.render", "documents.read"],
  environment: "live",
  expiresAt: null,
  createdAt: "2026-11-02T08:31:12.240Z",
  lastUsedAt: "2026-11-27T09:25:12.502Z",
  revokedAt: null
}

/** By operationId, then by status. */
export const RESPONSE_EXAMPLES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  "documents.create": {
    201: { contractVersion, document: { ...document, latestRevisionId: firstRevisionId }, links: documentLinks, revision: firstRevision }
  },
  "documents.list": {
    200: {
      contractVersion,
      documents: [document],
      pagination: {
        hasMore: true,
        nextCursor: "WyIyMDI2LTExLTI3VDA5OjE0OjAzLjQxMloiLCI5YjJlNGY2MSJd.yTpI9ZBn7p9-R8vYpL-evDbRDrP9ubYyHhoOv2saZFM"
      }
    }
  },
  "documents.get": { 200: { contractVersion, document, latestRevision: revision, links: documentLinks } },
  "documents.delete": {
    202: {
      contractVersion,
      documentId,
      retention: { ...document.retention, deleteRequestedAt: "2026-11-27T11:02:45.118Z" },
      status: "accepted"
    }
  },
  "documents.createRevision": {
    201: {
      contractVersion,
      documentId,
      revision,
      links: { document: documentLinks.self, preview: documentLinks.preview, publish: documentLinks.publish }
    }
  },
  "documents.createPreview": { 200: previewed, 202: jobResponse(pending(preview, "2026-11-27T09:36:05.233Z"), null) },
  "documents.createPublication": { 200: published, 202: jobResponse(queued, null) },
  "jobs.get": { 200: published },
  "jobs.cancel": {
    200: cancelled,
    202: jobResponse({ ...queued, status: "running", attemptCount: 1, startedAt: "2026-11-27T09:25:12.530Z" }, null)
  },
  "artifacts.createLink": {
    201: {
      contractVersion,
      artifactId,
      expiresAt: "2026-11-27T09:35:40.000Z",
      href: `${baseUrl}/api/v2/artifact-links/1UoBu0y4YI-1UunZu-IYRVnqGrY1owMS.SRHJppegdtzH5w4pjQ48uPDYH3qetFXAJHN-VaAYp9U`,
      retention: publication.retention
    }
  },
  "templates.create": { 201: { contractVersion, template } },
  "templates.list": { 200: { contractVersion, templates: [template] } },
  "templates.get": { 200: { contractVersion, template } },
  "templates.delete": { 200: { contractVersion, template: { ...template, deletedAt: "2026-11-27T12:10:04.331Z" } } },
  "webhooks.create": { 201: { contractVersion, secret: signingSecret, subscription } },
  "webhooks.list": { 200: { contractVersion, subscriptions: [subscription] } },
  "webhooks.rotateSecret": {
    200: {
      contractVersion,
      subscriptionId: webhookId,
      secret: {
        version: 2,
        fingerprint: "19bfcbeff8aa9b3c",
        signingSecret: "whsec_06FMRNkPEwqRb8jt82Wp2H/NsTPj6yDK2DkVKbQOMMg=",
        createdAt: "2026-11-27T12:00:00.000Z"
      }
    }
  },
  "webhooks.disable": {
    200: {
      contractVersion,
      subscription: { ...subscription, status: "disabled", disabledAt: "2026-11-27T12:30:00.000Z", updatedAt: "2026-11-27T12:30:00.000Z" }
    }
  },
  "webhooks.listDeliveries": { 200: { contractVersion, deliveries: [delivery], pagination: { hasMore: false, nextCursor: null } } },
  "webhooks.redeliver": {
    202: {
      contractVersion,
      delivery: { ...delivery, status: "pending", nextAttemptAt: "2026-11-27T12:40:00.000Z", updatedAt: "2026-11-27T12:40:00.000Z" }
    }
  },
  "admin.createAccount": { 201: { account } },
  "admin.getAccount": { 200: { account, usage } },
  "admin.createKey": { 201: { key, secret: "pk_live_8ac36c7c81d75def40ac59ad3638e4e0" } },
  "admin.listKeys": { 200: { keys: [key] } },
  "admin.revokeKey": { 200: { key: { ...key, revokedAt: "2026-11-27T13:00:00.000Z" } } },
  "admin.addCreditPacks": { 201: { usage } },
  "membersAdmin.invite": {
    201: {
      invitation: { id: "5b659ebd-170b-4245-971f-67226450f25f", email: "dana@acme.example", expiresAt: "2026-11-30T13:05:00.000Z" },
      url: `${baseUrl}/app/invitations/RG_zqeQWI6AZNoy7SFxYNfnbBffI9dHA4IgSZOf45Is`
    }
  },
  "ops.healthz": { 200: { status: "ok" } },
  "ops.readyz": {
    200: { status: "ready", checks: { database: true, migrations: true, renderer: true } },
    503: { status: "not_ready", checks: { database: false, migrations: true, renderer: true } }
  },
  "ops.openapi": { 200: { openapi: "3.1.0", info: { title: "Pressroom", version: "2.0.0" }, paths: {} } }
}
