/**
 * A JobResponse as the specification describes it (sections 2.3 and 2.8 to 2.13, contract
 * section 6): every field there, none beyond, each of its type. Checked field by field on the raw
 * JSON, so that a schema of ours that drifted from the specification cannot hide it.
 */
import type { TestContext } from "./tap.ts"

export const SHA256 = /^[a-f0-9]{64}$/
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/

const keys = (value: object) => Object.keys(value).sort()

const isTimestampOrNull = (value: unknown) => value === null || (typeof value === "string" && TIMESTAMP.test(value))

/** The provenance hashes a render computes (they are null only while the job has not rendered). */
export const RENDER_HASHES = [
  "catalogSha256",
  "fontSetSha256",
  "manifestSha256",
  "renderOptionsSha256",
  "rendererReleaseChecksum",
  "templateDefinitionSha256",
  "templateReleaseSha256"
] as const

const checkRetention = (t: TestContext, retention: any, what: string) => {
  t.same(keys(retention), ["deleteRequestedAt", "deletedAt", "expiresAt", "policy"], `${what}: the Retention fields`)
  t.equal(retention.policy, "managed_default", `${what}: policy managed_default`)
  t.match(retention.expiresAt, TIMESTAMP, `${what}: expiresAt a timestamp`)
  t.ok(
    isTimestampOrNull(retention.deleteRequestedAt) && isTimestampOrNull(retention.deletedAt),
    `${what}: deletion times null or timestamps`
  )
}

/** Checks the whole body; answers it for further assertions. */
export const checkJobResponse = (t: TestContext, body: any) => {
  t.same(keys(body), ["artifact", "contractVersion", "job", "links", "warnings"], "JobResponse: its fields")
  t.equal(body.contractVersion, "publishing.lifecycle.v1")
  const { job } = body
  t.same(
    keys(job),
    [
      "acceptedAt",
      "artifactId",
      "attemptCount",
      "completedAt",
      "documentId",
      "entitlement",
      "error",
      "id",
      "outputFormat",
      "provenance",
      "purpose",
      "queuedAt",
      "requestSha256",
      "retention",
      "revisionId",
      "startedAt",
      "status"
    ],
    "Job: every field of specification 2.8"
  )
  t.match(job.id, UUID)
  t.ok(["preview", "final"].includes(job.purpose), "Job: purpose")
  t.equal(job.outputFormat, "pdf")
  t.ok(["accepted", "queued", "running", "succeeded", "failed", "cancelled"].includes(job.status), `Job: status ${job.status}`)
  t.ok(Number.isInteger(job.attemptCount) && job.attemptCount >= 0 && job.attemptCount <= 100, "Job: attemptCount 0 to 100")
  t.match(job.acceptedAt, TIMESTAMP)
  t.ok(
    ["queuedAt", "startedAt", "completedAt"].every((field) => isTimestampOrNull(job[field])),
    "Job: times null or timestamps"
  )
  t.match(job.requestSha256, SHA256)
  checkRetention(t, job.retention, "Job")

  t.same(keys(job.entitlement), ["capturedAt", "catalogVersion", "plan", "source", "units"], "EntitlementSnapshot: its fields")
  t.match(job.entitlement.capturedAt, TIMESTAMP)
  t.type(job.entitlement.catalogVersion, "string")

  const provenance = job.provenance
  t.same(
    keys(provenance),
    [
      "assetSetSha256",
      "catalogSha256",
      "catalogVersion",
      "channel",
      "engineVersion",
      "fontSetSha256",
      "locale",
      "manifestSha256",
      "optionsSha256",
      "renderOptionsSha256",
      "rendererReleaseChecksum",
      "rendererVersion",
      "requestSha256",
      "sourceSha256",
      "synthetic",
      "templateDefinitionSha256",
      "templateId",
      "templateReleaseId",
      "templateReleaseSha256"
    ],
    "Provenance: every field of specification 2.10"
  )
  t.equal(provenance.channel, "rest_v2", "Provenance: channel rest_v2")
  t.equal(provenance.requestSha256, job.requestSha256, "Provenance: requestSha256 is the job's")
  for (const field of ["optionsSha256", "requestSha256", "sourceSha256"]) t.match(provenance[field], SHA256, `Provenance: ${field}`)
  t.equal(provenance.synthetic, false)

  if (job.status === "succeeded") {
    for (const field of RENDER_HASHES) t.match(provenance[field], SHA256, `Provenance: ${field} computed by the render`)
    t.type(provenance.engineVersion, "string", "Provenance: engineVersion named")
    t.ok(provenance.assetSetSha256 === null || SHA256.test(provenance.assetSetSha256), "Provenance: assetSetSha256")
    t.not(job.completedAt, null, "a succeeded job has completedAt")
  }

  t.same(keys(body.links), ["cancel", "self"], "links: cancel and self")
  t.equal(body.links.self, `/api/v2/jobs/${job.id}`)
  t.equal(body.links.cancel, `/api/v2/jobs/${job.id}/cancel`)

  t.ok(Array.isArray(body.warnings) && body.warnings.length <= 100, "warnings: an array of at most 100")
  for (const warning of body.warnings) {
    t.same(keys(warning), ["code", "line", "message"], "Warning: code, message, line")
    t.ok(typeof warning.code === "string" && typeof warning.message === "string", "Warning: code and message strings")
    t.ok(warning.line === null || (Number.isInteger(warning.line) && warning.line >= 1), "Warning: line null or 1-based")
  }

  if (body.artifact === null) {
    t.equal(job.artifactId, null, "no artifact, no artifactId")
  } else {
    const artifact = body.artifact
    t.same(
      keys(artifact),
      [
        "bytes",
        "contentType",
        "createdAt",
        "downloadPath",
        "filename",
        "finalizedAt",
        "format",
        "id",
        "jobId",
        "pageCount",
        "retention",
        "revisionId",
        "sha256",
        "status"
      ],
      "ArtifactSummary: every field of specification 2.11"
    )
    t.equal(artifact.id, job.artifactId, "ArtifactSummary: the job's artifactId")
    t.equal(artifact.jobId, job.id)
    t.equal(artifact.revisionId, job.revisionId)
    t.equal(artifact.format, "pdf")
    t.equal(artifact.contentType, "application/pdf")
    t.ok(Number.isInteger(artifact.bytes) && artifact.bytes >= 1, "ArtifactSummary: bytes")
    t.ok(Number.isInteger(artifact.pageCount) && artifact.pageCount >= 1, "ArtifactSummary: pageCount")
    t.match(artifact.sha256, SHA256)
    t.equal(artifact.downloadPath, `/api/v2/artifacts/${artifact.id}/download`)
    t.match(artifact.createdAt, TIMESTAMP)
    t.match(artifact.finalizedAt, TIMESTAMP)
    checkRetention(t, artifact.retention, "ArtifactSummary")
    t.same(job.retention, artifact.retention, "the job's retention is its artifact's")
  }
  return body
}

/** Milliseconds from one timestamp to another. */
export const millisBetween = (from: string, to: string) => Date.parse(to) - Date.parse(from)
