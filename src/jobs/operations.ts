/** The job operations as values, for the REST handlers (http.ts) and the MCP tools (src/mcp/) alike. */
import { type Duration, Effect } from "effect"
import { type Principal, requireScope } from "../accounts/principal.ts"
import { Jobs } from "./jobs.ts"

/**
 * Cancels the owner's job (another owner's is a 404 whatever the key's scopes), with scope
 * documents.render for a final job and documents.preview for a preview; a running render is
 * awaited up to `threshold`. The job as it stands then.
 */
export const cancelJob = (principal: Principal, jobId: string, threshold: Duration.Duration) =>
  Effect.gen(function* () {
    const jobs = yield* Jobs
    const job = yield* jobs.find(principal, jobId)
    yield* requireScope(job.purpose === "final" ? "documents.render" : "documents.preview")
    return yield* jobs.cancel(principal, job.id, threshold)
  })
