/**
 * action.yml as GitHub reads it: valid against the action metadata schema, its inputs the ones
 * the entry reads (names and defaults), each passed to the render step as the INPUT_<NAME>
 * variable @actions/core reads; and the workflows that use it valid against the workflow schema
 * (no runner can run them here).
 */
import t from "tap"
import { validateAction, validateWorkflow } from "@action-validator/core"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { parse } from "yaml"
import { INPUT_DEFAULTS, readInputs } from "../../src/action/inputs.ts"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { markedBlocks } from "../helpers/doc-blocks.ts"

interface ActionYml {
  readonly inputs: Readonly<Record<string, { readonly required?: boolean; readonly default?: string }>>
  readonly outputs: Readonly<Record<string, { readonly value: string }>>
  readonly runs: {
    readonly using: string
    readonly steps: ReadonlyArray<{ readonly id?: string; readonly run?: string; readonly env?: Readonly<Record<string, string>> }>
  }
}

const text = readFileSync(join(packageRoot, "action.yml"), "utf8")
const action = parse(text) as ActionYml
const render = action.runs.steps.find((step) => step.id === "render")

/** The variable a runner gives a JavaScript action for an input, and @actions/core reads. */
const variableOf = (name: string) => `INPUT_${name.replace(/ /g, "_").toUpperCase()}`

t.test("action.yml is valid action metadata", async (t) => {
  t.same(validateAction(text).errors, [])
  t.equal(action.runs.using, "composite")
})

t.test("its inputs are the entry's, with the same defaults", async (t) => {
  t.same(Object.keys(action.inputs), ["files", ...Object.keys(INPUT_DEFAULTS)])
  t.equal(action.inputs.files?.required, true)
  for (const [name, value] of Object.entries(INPUT_DEFAULTS)) t.equal(action.inputs[name]?.default, value, name)
})

t.test("the render step gets each input as INPUT_<NAME> and runs the entry", async (t) => {
  t.ok(render, "a step with id render")
  t.same(render?.env, Object.fromEntries(Object.keys(action.inputs).map((name) => [variableOf(name), `\${{ inputs.${name} }}`])))
  t.match(render?.run ?? "", /node "\$GITHUB_ACTION_PATH\/bin\/pressroom\.js" action$/)
  t.equal(action.outputs.pdfs?.value, `\${{ steps.render.outputs.pdfs }}`)
})

t.test("the entry reads every input from the variable the render step sets", async (t) => {
  const given: Record<string, string> = {
    files: "a/*.md\nb/*.md",
    template: "resume",
    locale: "de",
    options: '{"pageNumbers":true}',
    "output-dir": "out",
    "fail-on-warning": "true"
  }
  t.same(Object.keys(given), Object.keys(action.inputs), "every input given")
  const saved = { ...process.env }
  t.teardown(() => {
    process.env = saved
  })
  for (const [name, value] of Object.entries(given)) process.env[variableOf(name)] = value
  t.same(readInputs(), {
    files: ["a/*.md", "b/*.md"],
    template: "resume",
    locale: "de",
    options: { pageNumbers: true },
    outputDir: "out",
    failOnWarning: true
  })
})

const workflows: ReadonlyArray<{ readonly path: string; readonly source: string }> = [
  ...[
    "examples/github-action.yml",
    ...readdirSync(join(packageRoot, ".github", "workflows")).map((file) => `.github/workflows/${file}`)
  ].map((path) => ({ path, source: readFileSync(join(packageRoot, path), "utf8") })),
  // The README's release workflow, as a reader copies it.
  ...markedBlocks("README.md", "release-workflow").map(({ code }) => ({ path: "README.md's release workflow", source: code }))
]

for (const { path, source } of workflows) {
  t.test(`${path} is a valid workflow that gives the action only its inputs`, async (t) => {
    t.same(validateWorkflow(source).errors, [])
    const jobs = Object.values(
      (parse(source) as { jobs: Record<string, { steps: Array<{ id?: string; uses?: string; with?: object }> }> }).jobs
    )
    const uses = jobs.flatMap((job) => job.steps).filter((step) => step.id === "pressroom")
    t.equal(uses.length, 1, "one step uses the action")
    const inputs = Object.keys(uses[0]?.with ?? {})
    t.ok(inputs.includes("files"), "files, which is required")
    t.same(
      inputs.filter((name) => !(name in action.inputs)),
      [],
      "no input the action does not declare"
    )
  })
}
