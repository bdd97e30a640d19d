/**
 * One matched file through the renderer: its `pressroom:` block over the inputs, the PDF and its
 * provenance record written under the output folder, or why it was not.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { InvalidRenderRequest, type Renderer, RenderingFailed, type RenderResult, uncheckedRequest } from "../render/renderer.ts"
import { writeRenderFiles } from "../render/render-files.ts"
import type { RenderWarning } from "../render/common/warnings.ts"
import type { ActionInputs } from "./inputs.ts"
import { InvalidPressroomBlock, lineOfField, type PressroomBlock, readPressroomBlock } from "./pressroom-block.ts"
import { type MatchedFile, withoutExtension } from "./workspace.ts"

export type FileOutcome =
  | {
      readonly _tag: "Written"
      readonly file: string
      readonly template: string
      /** Relative to the workspace. */
      readonly pdf: string
      readonly pageCount: number
      readonly sha256: string
      readonly warnings: ReadonlyArray<RenderWarning>
    }
  | { readonly _tag: "Failed"; readonly file: string; readonly message: string; readonly line?: number }

const failed = (file: string, message: string, line?: number): FileOutcome => ({
  _tag: "Failed",
  file,
  message,
  ...(line !== undefined ? { line } : {})
})

export interface RenderFileContext {
  readonly renderer: Renderer
  readonly inputs: ActionInputs
  readonly workspace: string
}

/** `docs/cv.md` under `pdf` → `pdf/docs/cv` (to which `.pdf` and `.provenance.json` are appended). */
export const outputStem = (outputDir: string, file: string): string => join(outputDir, withoutExtension(file)).split("\\").join("/")

export const renderFile = async ({ renderer, inputs, workspace }: RenderFileContext, file: MatchedFile): Promise<FileOutcome> => {
  if (file.outside) return failed(file.path, "the file is a link to a path outside the workspace: not read")
  let markdown: string
  try {
    markdown = readFileSync(file.absolute, "utf8")
  } catch {
    return failed(file.path, "the file cannot be read")
  }
  let block: PressroomBlock | undefined
  try {
    block = readPressroomBlock(markdown)
  } catch (error) {
    if (error instanceof InvalidPressroomBlock) return failed(file.path, error.message, error.line)
    throw error
  }
  const templateId = block?.template ?? inputs.template
  const request = uncheckedRequest({
    markdown,
    templateId,
    locale: block?.locale ?? inputs.locale,
    // Option by option: a file's block sets some, the workflow's input the rest.
    options: { ...inputs.options, ...block?.options },
    channel: "github_action"
  })
  let result: RenderResult
  try {
    result = await renderer.render(request)
  } catch (error) {
    // The inputs were checked before any file (run.ts): a refusal here is the block's.
    if (error instanceof InvalidRenderRequest) return failed(file.path, error.message, block ? lineOfField(block, error.field) : undefined)
    if (error instanceof RenderingFailed) {
      const cause = error.diagnostics[0]
      return failed(file.path, `the file cannot be typeset: ${error.message}${cause ? ` (${cause})` : ""}`)
    }
    throw error
  }
  const stem = outputStem(inputs.outputDir, file.path)
  try {
    mkdirSync(dirname(join(workspace, stem)), { recursive: true })
    writeRenderFiles(result, join(workspace, `${stem}.pdf`), join(workspace, `${stem}.provenance.json`))
  } catch (error) {
    // A full disk or a file in the folder's place fails this file, not the others; no PDF is
    // left without its record.
    const pdf = join(workspace, `${stem}.pdf`)
    if (existsSync(pdf)) rmSync(pdf)
    return failed(file.path, `${stem}.pdf cannot be written (${(error as NodeJS.ErrnoException).code ?? "error"})`)
  }
  return {
    _tag: "Written",
    file: file.path,
    template: templateId,
    pdf: `${stem}.pdf`,
    pageCount: result.pageCount,
    sha256: result.sha256,
    warnings: result.warnings
  }
}
