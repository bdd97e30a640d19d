/**
 * pressroom audit <jobId>... [--json] (contract section 11): renders succeeded jobs again from their
 * source, on the configured database (`DATABASE_URL`, else PGlite under `PRESSROOM_DATA_DIR`,
 * which belongs to one process at a time: stop the server first), and prints, check by check,
 * whether each job's provenance and artifact bytes match (src/audit.ts). Several jobs are audited in
 * turn by one process, which opens the database and starts its compiler once: an operator checking
 * a day's publications pays that once rather than per job. Exit 0 when every check of every job
 * matches; 1 when one differs or cannot be made (an unknown job, one that did not succeed, its
 * source or its bytes gone), with the reason on stderr (or in the JSON); 2 for a usage error.
 */
import { Cause, ConfigProvider, Effect, Exit, Layer, Schema } from "effect"
import { parseArgs } from "node:util"
import { ArtifactRepository } from "../artifacts/repository.ts"
import { type AuditCheck, type AuditReport, auditJob } from "../audit.ts"
import { DocumentStore } from "../documents/store.ts"
import { JobStore } from "../jobs/job-store.ts"
import { UnkeyedEdgesLive } from "../platform.ts"
import { auditUsage, UsageError } from "./usage.ts"

/** Documents are rendered one after the other: one compiler worker, whatever the server's setting, and no warm-up page. */
const oneWorker = ConfigProvider.fromMap(
  new Map([
    ["PRESSROOM_RENDER_WORKERS", "1"],
    ["PRESSROOM_RENDER_WARM_UP", "false"]
  ])
).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))

const AuditLive = Layer.mergeAll(JobStore.Default, DocumentStore.Default, ArtifactRepository.Default).pipe(
  Layer.provideMerge(UnkeyedEdgesLive)
)

const verdict = (check: AuditCheck): string => {
  if (check.match) return `match    ${check.recorded}`
  const values = `recorded ${check.recorded}, now ${check.actual}`
  return check.informational ? `differs  ${values} (information: the engines are byte-identical by contract)` : `DIFFERS  ${values}`
}

/**
 * A job's checks, one line each, and the verdict. With several jobs, each block opens with the
 * job's id and each reason names its job, so that a reader can tell whose line is whose.
 */
const printText = (report: AuditReport, several: boolean): void => {
  const width = Math.max(0, ...report.checks.map((check) => check.name.length)) + 2
  const lines = report.checks.map((check) => `${check.name.padEnd(width)}${verdict(check)}`)
  if (report.checks.length > 0) {
    const differing = report.checks.filter((check) => !check.match && !check.informational).map((check) => check.name)
    lines.push(differing.length === 0 ? "every check matches" : `${differing.length} differ: ${differing.join(", ")}`)
  }
  if (several) lines.unshift(`job ${report.jobId}`)
  process.stdout.write(lines.map((line) => `${line}\n`).join(""))
  if (report.reason) process.stderr.write(`pressroom audit: ${several ? `job ${report.jobId}: ` : ""}${report.reason}\n`)
}

export const runAudit = async (argv: ReadonlyArray<string>): Promise<number> => {
  const { values, positionals: jobIds } = parseArgs({ args: [...argv], allowPositionals: true, options: { json: { type: "boolean" } } })
  if (jobIds.length === 0) throw new UsageError(auditUsage)
  // Every id is checked before any job is rendered: a typo in the tenth id should not cost nine renders.
  const malformed = jobIds.find((jobId) => !Schema.is(Schema.UUID)(jobId))
  if (malformed !== undefined) throw new UsageError(`jobId must be a uuid, got '${malformed}'`)
  const several = jobIds.length > 1
  // Each report is printed as soon as it is made (a batch can take minutes), as one JSON object
  // per line with --json: a single job's output is the one object it always was.
  const audits = Effect.forEach(jobIds, (jobId) =>
    Effect.map(auditJob(jobId), (report) => {
      if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`)
      else printText(report, several)
      return report.match
    })
  )
  const exit = await Effect.runPromiseExit(audits.pipe(Effect.provide(AuditLive), Effect.withConfigProvider(oneWorker)))
  if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
  return exit.value.every(Boolean) ? 0 : 1
}
