/**
 * The resources of contract section 13: each built-in template (its description, the front
 * matter keys it reads as its own file's heading comment states them, and its gallery image) and
 * the Markdown guide.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { galleryDir } from "../dashboard/gallery.ts"
import { catalog, findTemplate } from "../render/catalog.ts"
import { templatesRoot } from "../render/engine/bundle.ts"
import { MARKDOWN_GUIDE } from "./markdown-guide.ts"

export const GUIDE_URI = "pressroom://guides/markdown"
export const TEMPLATE_URI_TEMPLATE = "pressroom://templates/{templateId}"
const TEMPLATE_URI = /^pressroom:\/\/templates\/([a-z0-9-]+)$/

export const resourceList = () => [
  { uri: GUIDE_URI, name: "markdown-guide", title: "Writing Markdown for Pressroom", mimeType: "text/markdown" },
  ...catalog.templates.map((template) => ({
    uri: `pressroom://templates/${template.id}`,
    name: template.id,
    title: template.title,
    description: template.description,
    mimeType: "text/markdown"
  }))
]

/** The heading comment of a template's Typst file: what its front matter and Markdown conventions are. */
const headingComment = (templateId: string) =>
  readFileSync(join(templatesRoot, "templates", `${templateId}.typ`), "utf8")
    .split("\n")
    .filter((_line, index, lines) => lines.slice(0, index + 1).every((earlier) => earlier.startsWith("//")))
    .map((line) => line.replace(/^\/\/ ?/, ""))
    .join("\n")

type Contents = Array<{ uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string }>

/** The contents of `uri`, or undefined for an unknown one. */
export const readResource = (uri: string): Contents | undefined => {
  if (uri === GUIDE_URI) return [{ uri, mimeType: "text/markdown", text: MARKDOWN_GUIDE }]
  const id = TEMPLATE_URI.exec(uri)?.[1]
  const template = id === undefined ? undefined : findTemplate(id)
  if (!template) return undefined
  const text = [
    `# ${template.title} (\`${template.id}\`, family ${template.family})`,
    "",
    template.description,
    "",
    "## Front matter and Markdown conventions",
    "",
    headingComment(template.id)
  ].join("\n")
  const gallery = join(galleryDir, `${template.id}.png`)
  return [
    { uri, mimeType: "text/markdown", text },
    ...(existsSync(gallery) ? [{ uri: `${uri}/gallery.png`, mimeType: "image/png", blob: readFileSync(gallery).toString("base64") }] : [])
  ]
}
