/**
 * The GitHub Action (contract section 14; action.yml runs it as `pressroom action`): the Markdown
 * files the `files` globs match, rendered on the runner with the library, each to
 * `<output-dir>/<path>.pdf` with its provenance record beside it. Every file is rendered and
 * written before the step is failed for any of them.
 */
import * as core from "@actions/core"
import { Effect } from "effect"
import { rendererConfig } from "../render/config.ts"
import { InvalidRenderRequest, Renderer, uncheckedRequest } from "../render/renderer.ts"
import { type ActionInputs, InvalidInput, readInputs } from "./inputs.ts"
import { type FileOutcome, outputStem, renderFile } from "./render-file.ts"
import { annotate, setPdfsOutput, writeSummary } from "./report.ts"
import { insideWorkspace, type MatchedFile, matchFiles } from "./workspace.ts"

/** The inputs' template, locale and options, checked once: a refusal here is the workflow's, not a file's. */
const checkInputs = (renderer: Renderer, inputs: ActionInputs): void => {
  try {
    renderer.plan(uncheckedRequest({ markdown: "", templateId: inputs.template, locale: inputs.locale, options: inputs.options }))
  } catch (error) {
    if (error instanceof InvalidRenderRequest) throw new InvalidInput(`input ${error.message}`)
    throw error
  }
}

/** Two files that would write the same PDF (`a.md`, `a.markdown`): the later one fails. */
const firstOfEachOutput = (outputDir: string, files: ReadonlyArray<MatchedFile>) => {
  const owners = new Map<string, string>()
  return files.map((file) => {
    const stem = outputStem(outputDir, file.path)
    const owner = owners.get(stem)
    if (owner === undefined) owners.set(stem, file.path)
    return owner
  })
}

const renderAll = async (workspace: string, inputs: ActionInputs): Promise<ReadonlyArray<FileOutcome>> => {
  const files = await matchFiles(workspace, inputs.files)
  if (files.length === 0) throw new InvalidInput("input files matched no file in the workspace")
  const config = await Effect.runPromise(rendererConfig)
  // No warm-up: the run's own files are the only renders there will be.
  const renderer = await Renderer.create({ ...config, workers: Math.min(config.workers, files.length), warmUp: false })
  try {
    checkInputs(renderer, inputs)
    const clashes = firstOfEachOutput(inputs.outputDir, files)
    // All at once: the pool queues them, one per worker.
    return await Promise.all(
      files.map((file, i): Promise<FileOutcome> | FileOutcome =>
        clashes[i] === undefined
          ? renderFile({ renderer, inputs, workspace }, file)
          : { _tag: "Failed", file: file.path, message: `its PDF would be the one ${clashes[i]} writes: not rendered` }
      )
    )
  } finally {
    await renderer.close()
  }
}

/** Runs the action; the exit code the step ends with. */
export const runAction = async (): Promise<number> => {
  try {
    const workspace = process.env.GITHUB_WORKSPACE
    if (!workspace) throw new InvalidInput("GITHUB_WORKSPACE is not set: the action runs on a GitHub Actions runner")
    const inputs = readInputs()
    insideWorkspace(workspace, inputs.outputDir, "input output-dir")
    const outcomes = await renderAll(workspace, inputs)
    // Every file is written by now: the annotations, summary and output describe them all.
    annotate(outcomes)
    setPdfsOutput(outcomes)
    await writeSummary(outcomes)
    const failures = outcomes.filter((outcome) => outcome._tag === "Failed").length
    const warned = outcomes.filter((outcome) => outcome._tag === "Written" && outcome.warnings.length > 0).length
    if (failures > 0) {
      core.setFailed(`${failures} of ${outcomes.length} files failed; the others were written`)
      return 1
    }
    if (inputs.failOnWarning && warned > 0) {
      core.setFailed(`${warned} of ${outcomes.length} files warned, and fail-on-warning is true; all were written`)
      return 1
    }
    return 0
  } catch (error) {
    // An input the action cannot run with, or a renderer that cannot start: one error for the step.
    core.setFailed(error instanceof Error ? error.message : String(error))
    return 1
  }
}
