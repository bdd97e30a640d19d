/**
 * The job state machine (specification section 3) in one table: every change of a job's status
 * the code makes, the `JobStore` or `JobLifecycle` write that makes it, and the modules that decide
 * it. docs/state-machines.md draws the same edges, and test/jobs/transitions.test.ts fails when
 * the diagram, this table or the calls in src/ disagree.
 *
 * `accepted` is a status of the specification (the API's enum, and the expected states of a 409
 * `invalid_state_transition`) that no row ever takes: admission writes the job and reserves its
 * unit in one transaction, so a job is `queued` the moment it exists and there is no moment at
 * which it is accepted but not yet queued.
 */
import type { JobStatus } from "./job.ts"

/** What a new job comes from: no status yet. */
export const NEW = "[*]"

export interface JobTransition {
  readonly from: typeof NEW | JobStatus
  readonly to: JobStatus
  /** The write that makes it: a `JobStore` or `JobLifecycle` function. */
  readonly write: "insert" | "claim" | "succeed" | "end" | "endUnclaimed" | "requeue" | "requeueLapsed"
  /** The modules that call that write for this transition, from src/. */
  readonly by: ReadonlyArray<string>
}

export const JOB_TRANSITIONS: ReadonlyArray<JobTransition> = [
  { from: NEW, to: "queued", write: "insert", by: ["jobs/jobs.ts"] },
  { from: "queued", to: "running", write: "claim", by: ["jobs/supervisor.ts"] },
  { from: "running", to: "succeeded", write: "succeed", by: ["jobs/supervisor.ts"] },
  { from: "running", to: "failed", write: "end", by: ["jobs/supervisor.ts"] },
  { from: "running", to: "cancelled", write: "end", by: ["jobs/supervisor.ts"] },
  { from: "running", to: "queued", write: "requeue", by: ["jobs/supervisor.ts"] },
  { from: "running", to: "queued", write: "requeueLapsed", by: ["jobs/rescuer.ts"] },
  { from: "running", to: "failed", write: "endUnclaimed", by: ["jobs/rescuer.ts"] },
  { from: "running", to: "cancelled", write: "endUnclaimed", by: ["jobs/rescuer.ts"] },
  { from: "queued", to: "cancelled", write: "endUnclaimed", by: ["jobs/jobs.ts", "documents/documents.ts"] }
]
