/**
 * GitHub's subset of HTML: hast-util-sanitize's defaultSchema (GitHub's allow-list), with `mark`
 * and `data:` image sources added, since a PDF embeds its images and never fetches one.
 */
import { defaultSchema, type Schema } from "hast-util-sanitize"

/** Elements whose content is never text of the document: dropped whole, not unwrapped. */
export const STRIPPED: ReadonlyArray<string> = [
  "script",
  "style",
  "template",
  "noscript",
  "textarea",
  "title",
  "svg",
  "math",
  "iframe",
  "object",
  "select"
]

const ALLOWED: ReadonlySet<string> = new Set([...(defaultSchema.tagNames ?? []), "mark"])

export const isAllowed = (tagName: string): boolean => ALLOWED.has(tagName)

/** The schema, allowing besides the placeholders (`slots`) that stand for Markdown between the HTML. */
export const schemaWith = (slots: ReadonlyArray<string>): Schema => ({
  ...defaultSchema,
  tagNames: [...ALLOWED, ...slots],
  strip: [...STRIPPED],
  protocols: { ...defaultSchema.protocols, src: [...(defaultSchema.protocols?.src ?? []), "data"] }
})
