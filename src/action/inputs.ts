/**
 * The action's inputs (contract section 14), read as the runner gives them: `INPUT_<NAME>`
 * variables, through @actions/core. action.yml declares the same names and defaults
 * (test/action/action-yml.test.ts holds the two together); the defaults are repeated here for a
 * run without action.yml's (the entry started by hand, or by a test).
 */
import * as core from "@actions/core"

export const INPUT_DEFAULTS = {
  template: "clean",
  locale: "en",
  options: "{}",
  "output-dir": "pdf",
  "fail-on-warning": "false"
} as const

export interface ActionInputs {
  /** Newline-separated globs, relative to the workspace. */
  readonly files: ReadonlyArray<string>
  readonly template: string
  readonly locale: string
  readonly options: Readonly<Record<string, unknown>>
  /** Relative to the workspace. */
  readonly outputDir: string
  readonly failOnWarning: boolean
}

/** An input the action cannot run with: the step fails before any file is rendered. */
export class InvalidInput extends Error {}

const withDefault = (name: keyof typeof INPUT_DEFAULTS): string => core.getInput(name) || INPUT_DEFAULTS[name]

/** A boolean input, spelled as GitHub's own (YAML 1.2's core schema, as core.getBooleanInput reads them). */
const readBoolean = (name: "fail-on-warning"): boolean => {
  const text = withDefault(name)
  if (["true", "True", "TRUE"].includes(text)) return true
  if (["false", "False", "FALSE"].includes(text)) return false
  throw new InvalidInput(`input ${name} must be true or false`)
}

const parseOptions = (text: string): Record<string, unknown> => {
  let options: unknown
  try {
    options = JSON.parse(text)
  } catch {
    throw new InvalidInput('input options must be a JSON object, like {"pageNumbers": true}')
  }
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new InvalidInput('input options must be a JSON object, like {"pageNumbers": true}')
  }
  return options as Record<string, unknown>
}

export const readInputs = (): ActionInputs => {
  const files = core.getMultilineInput("files", { required: true })
  const failOnWarning = readBoolean("fail-on-warning")
  return {
    files,
    template: withDefault("template"),
    locale: withDefault("locale"),
    options: parseOptions(withDefault("options")),
    outputDir: withDefault("output-dir"),
    failOnWarning
  }
}
