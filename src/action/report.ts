/**
 * What the runner shows of a run (contract section 14): an annotation per warning and per failed
 * file, on its file and line; the job summary's table; the `pdfs` output.
 */
import * as core from "@actions/core"
import type { FileOutcome } from "./render-file.ts"

/** The summary is HTML, and @actions/core puts a cell's text in as it is: a file name may hold `<` or `&`. */
const escapeHtml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

export const annotate = (outcomes: ReadonlyArray<FileOutcome>): void => {
  for (const outcome of outcomes) {
    if (outcome._tag === "Failed") {
      core.error(outcome.message, { file: outcome.file, ...(outcome.line !== undefined ? { startLine: outcome.line } : {}) })
      continue
    }
    for (const warning of outcome.warnings) {
      core.warning(`${warning.code}: ${warning.message}`, {
        file: outcome.file,
        ...(warning.line !== null ? { startLine: warning.line } : {})
      })
    }
  }
}

export const writeSummary = async (outcomes: ReadonlyArray<FileOutcome>): Promise<void> => {
  // GITHUB_STEP_SUMMARY is set on every runner; a run by hand without it has no summary to write.
  if (!process.env.GITHUB_STEP_SUMMARY) return
  const written = outcomes.flatMap((outcome) => (outcome._tag === "Written" ? [outcome] : []))
  const failures = outcomes.flatMap((outcome) => (outcome._tag === "Failed" ? [outcome] : []))
  const header = ["file", "template", "pages", "SHA-256", "warnings"].map((data) => ({ data, header: true }))
  const rows = written.map((outcome) => [
    escapeHtml(outcome.file),
    escapeHtml(outcome.template),
    String(outcome.pageCount),
    `<code>${outcome.sha256}</code>`,
    String(outcome.warnings.length)
  ])
  core.summary.addHeading("Pressroom", 2).addTable([header, ...rows])
  if (failures.length > 0) {
    core.summary
      .addHeading("Not written", 3)
      .addList(
        failures.map((failure) => `${escapeHtml(failure.file)}${failure.line ? `:${failure.line}` : ""}: ${escapeHtml(failure.message)}`)
      )
  }
  await core.summary.write()
}

/** The `pdfs` output: the written PDFs' paths relative to the workspace, as a JSON array. */
export const setPdfsOutput = (outcomes: ReadonlyArray<FileOutcome>): void => {
  core.setOutput("pdfs", JSON.stringify(outcomes.flatMap((outcome) => (outcome._tag === "Written" ? [outcome.pdf] : []))))
}
