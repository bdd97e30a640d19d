/**
 * pressroom render <file.md | -> --template <id> [--locale <loc>] [--option key=value ...]
 *                  -o <out.pdf> [--provenance <out.json>]
 */
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { rendererConfig } from "../render/config.ts"
import { optionFromText } from "../render/common/options.ts"
import { InvalidRenderRequest, Renderer, RenderingFailed, uncheckedRequest } from "../render/renderer.ts"
import { writeRenderFiles } from "../render/render-files.ts"
import { readSettings } from "../shared/read-settings.ts"
import { renderUsage, UsageError } from "./usage.ts"

/** `--option pageNumbers=true` → { pageNumbers: true }: each value read as its option's schema says. */
export const parseOptionFlags = (flags: ReadonlyArray<string>): Record<string, unknown> => {
  const options: Record<string, unknown> = {}
  for (const flag of flags) {
    const equals = flag.indexOf("=")
    if (equals <= 0) throw new UsageError(`--option takes key=value, got '${flag}'`)
    const key = flag.slice(0, equals)
    const value = flag.slice(equals + 1)
    options[key] = optionFromText(key, value)
  }
  return options
}

export const runRender = async (argv: ReadonlyArray<string>): Promise<void> => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      template: { type: "string", short: "t" },
      locale: { type: "string", short: "l" },
      option: { type: "string", multiple: true },
      output: { type: "string", short: "o" },
      provenance: { type: "string" }
    }
  })
  const [input, ...extra] = positionals
  if (!input || extra.length > 0) throw new UsageError(renderUsage)
  if (!values.template) throw new UsageError("--template is required")
  if (!values.output) throw new UsageError("-o <out.pdf> is required")
  const options = parseOptionFlags(values.option ?? [])
  let markdown: string
  try {
    markdown = readFileSync(input === "-" ? 0 : input, "utf8")
  } catch {
    throw new UsageError(`cannot read ${input === "-" ? "standard input" : input}`)
  }
  const config = readSettings(rendererConfig)
  // A one-shot command needs one compiler, not one per core, and no warm-up for later renders.
  const renderer = await Renderer.create({ ...config, workers: 1, warmUp: false })
  try {
    const result = await renderer.render(
      uncheckedRequest({ markdown, templateId: values.template, locale: values.locale, options, channel: "cli" })
    )
    writeRenderFiles(result, values.output, values.provenance)
    for (const warning of result.warnings) {
      process.stderr.write(`warning: ${warning.code}${warning.line ? ` (line ${warning.line})` : ""}: ${warning.message}\n`)
    }
  } catch (error) {
    if (error instanceof InvalidRenderRequest) throw new UsageError(error.message)
    if (error instanceof RenderingFailed) {
      const cause = error.diagnostics[0]
      throw new Error(`rendering failed: ${error.message}${cause ? ` (${cause})` : ""}`)
    }
    throw error
  } finally {
    await renderer.close()
  }
}
