/**
 * A file's `pressroom:` front matter block (contract section 14): `{ template, locale, options }`,
 * each overriding the action's input of that name, with the line of each setting so that a
 * refusal is annotated where it is written. The block stays in the Markdown the renderer reads: a
 * file then renders to the same bytes through the action as through `pressroom render`.
 */
import { fromMarkdown } from "mdast-util-from-markdown"
import { frontmatterFromMarkdown } from "mdast-util-frontmatter"
import { frontmatter } from "micromark-extension-frontmatter"
import { isMap, isScalar, LineCounter, type Node, parseDocument, type YAMLMap } from "yaml"

const SETTINGS = ["template", "locale", "options"] as const

export interface PressroomBlock {
  readonly template?: string
  readonly locale?: string
  readonly options?: Readonly<Record<string, unknown>>
  /** The file's line of the `pressroom:` key, and of each setting and option in it. */
  readonly lines: {
    readonly block: number
    readonly template?: number
    readonly locale?: number
    readonly options?: number
    readonly option: Readonly<Record<string, number>>
  }
}

/** A block that cannot be applied: the file fails, annotated at `line`. */
export class InvalidPressroomBlock extends Error {
  constructor(
    message: string,
    readonly line: number
  ) {
    super(message)
  }
}

/**
 * The file's `pressroom:` block, or undefined when it has none. Front matter that is not YAML, or
 * not a mapping, has no block: the renderer ignores such front matter with a warning of its own
 * (`front_matter_invalid`), which is annotated like every warning. Throws InvalidPressroomBlock.
 */
export const readPressroomBlock = (markdown: string): PressroomBlock | undefined => {
  const yamlNode = fromMarkdown(markdown, { extensions: [frontmatter(["yaml"])], mdastExtensions: [frontmatterFromMarkdown(["yaml"])] })
    .children[0]
  if (yamlNode?.type !== "yaml") return undefined
  const lineCounter = new LineCounter()
  const document = parseDocument(yamlNode.value, { lineCounter })
  if (document.errors.length > 0 || !isMap(document.contents)) return undefined
  // The YAML starts on the line after the opening `---`.
  const firstLine = yamlNode.position?.start.line ?? 1
  const lineOf = (node: Node | null | undefined): number => (node?.range ? firstLine + lineCounter.linePos(node.range[0]).line : firstLine)
  const pair = document.contents.items.find((item) => isScalar(item.key) && item.key.value === "pressroom")
  if (!pair) return undefined
  const blockLine = lineOf(pair.key as Node)
  if (!isMap(pair.value)) {
    throw new InvalidPressroomBlock("the pressroom block must be a mapping of template, locale and options", blockLine)
  }
  const settings: { template?: string; locale?: string; options?: Record<string, unknown> } = {}
  const lines: { block: number; template?: number; locale?: number; options?: number; option: Record<string, number> } = {
    block: blockLine,
    option: {}
  }
  for (const item of (pair.value as YAMLMap).items) {
    const name = isScalar(item.key) ? String(item.key.value) : ""
    const line = lineOf(item.key as Node)
    if (!(SETTINGS as ReadonlyArray<string>).includes(name)) {
      throw new InvalidPressroomBlock(`unknown pressroom setting '${name}' (it takes ${SETTINGS.join(", ")})`, line)
    }
    const value = item.value as Node | null
    if (name === "options") {
      if (!isMap(value)) throw new InvalidPressroomBlock("pressroom.options must be a mapping of option names to values", line)
      for (const option of value.items) if (isScalar(option.key)) lines.option[String(option.key.value)] = lineOf(option.key as Node)
      settings.options = value.toJS(document, { maxAliasCount: 50 }) as Record<string, unknown>
      lines.options = line
    } else {
      if (!isScalar(value) || typeof value.value !== "string") throw new InvalidPressroomBlock(`pressroom.${name} must be a name`, line)
      settings[name as "template" | "locale"] = value.value
      lines[name as "template" | "locale"] = line
    }
  }
  return { ...settings, lines }
}

/**
 * The line of the setting that a renderer's refusal names (`templateId`, `locale`,
 * `options.pageNumbers`); undefined for a refusal of the Markdown itself (its length).
 */
export const lineOfField = (block: PressroomBlock, field: string): number | undefined => {
  if (field === "templateId") return block.lines.template ?? block.lines.block
  if (field === "locale") return block.lines.locale ?? block.lines.block
  if (!field.startsWith("options")) return undefined
  const option = field.split(".")[1]
  return (option !== undefined ? block.lines.option[option] : undefined) ?? block.lines.options ?? block.lines.block
}
