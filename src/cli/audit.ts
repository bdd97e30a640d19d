/**
 * pressroom audit <jobId> [--json] (contract section 11): renders a succeeded job again from its
 * source, on the configured database (`DATABASE_URL`, else PGlite under `PRESSROOM_DATA_DIR`,
 * which belongs to one process at a time: stop the server first), and prints, check by check,
 * whether its provenance and its artifact's bytes match (src/audit.ts). Exit 0 when every
 * check matches; 1 when one differs or cannot be made (an unknown job, one that did not succeed,
 * its source or its bytes gone), with the reason on stderr (or in the JSON); 2 for a usage error.
 */
import { Cause, ConfigProvider, Effect, Exit, Layer, Schema } from "effect"
import { parseArgs } from "node:util"
import { ArtifactRepository } from "../artifacts/repository.ts"
import { type AuditCheck, type AuditReport, auditJob } from "../audit.ts"
import { DocumentStore } from "../documents/store.ts"
import { JobStore } from "../jobs/job-store.ts"
import { UnkeyedEdgesLive } from "../platform.ts"
import { auditUsage, UsageError } from "./usage.ts"

/** One document is rendered: one compiler worker, whatever the server's setting, and no warm-up page. */
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

const printText = (report: AuditReport): void => {
  const width = Math.max(0, ...report.checks.map((check) => check.name.length)) + 2
  const lines = report.checks.map((check) => `${check.name.padEnd(width)}${verdict(check)}`)
  if (report.checks.length > 0) {
    const differing = report.checks.filter((check) => !check.match && !check.informational).map((check) => check.name)
    lines.push(differing.length === 0 ? "every check matches" : `${differing.length} differ: ${differing.join(", ")}`)
  }
  process.stdout.write(lines.map((line) => `${line}\n`).join(""))
  if (report.reason) process.stderr.write(`pressroom audit: ${report.reason}\n`)
}

export const runAudit = async (argv: ReadonlyArray<string>): Promise<number> => {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { json: { type: "boolean" } } })
  const [jobId, ...extra] = positionals
  if (jobId === undefined || extra.length > 0) throw new UsageError(auditUsage)
  if (!Schema.is(Schema.UUID)(jobId)) throw new UsageError(`jobId must be a uuid, got '${jobId}'`)
  const exit = await Effect.runPromiseExit(auditJob(jobId).pipe(Effect.provide(AuditLive), Effect.withConfigProvider(oneWorker)))
  if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
  const report = exit.value
  if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`)
  else printText(report)
  return report.match ? 0 : 1
}
