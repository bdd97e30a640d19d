/** The documents the render benchmark measures. */
import type { TemplateId } from "../src/render/catalog.ts"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { packageRoot } from "../src/render/fonts/manifest.ts"

export interface BenchDocument {
  readonly name: string
  readonly templateId: TemplateId
  readonly markdown: string
}

const example = (id: string): string => {
  const path = join(packageRoot, "examples", `${id}.md`)
  if (!existsSync(path)) throw new Error(`examples/${id}.md is missing`)
  return readFileSync(path, "utf8")
}

const paragraph = (i: number): string =>
  `Section ${i} examines how the quarterly figures moved against the plan. Revenue grew in the ` +
  `*enterprise* segment while **operating costs** stayed flat; the variance is explained below, ` +
  `with the assumptions listed in \`appendix-${i}\` and a footnote on method.[^n${i}]`

/** A report of sections with paragraphs, lists, tables, code and footnotes; ~60 pages with `clean`. */
export const report = (sections: number): string => {
  const parts = ["---", "title: Annual Operations Report", "author: Finance Team", "date: 2026-11-01", "---", ""]
  for (let i = 1; i <= sections; i++) {
    parts.push(`## ${i}. Results for area ${i}`, "", paragraph(i), "", paragraph(i + 1000), "")
    parts.push("- Throughput rose by 4.2%", "- Backlog fell to 12 days", "  - of which 3 days are holidays", "")
    parts.push("| Metric | Q1 | Q2 | Q3 |", "|:--|--:|--:|--:|", "| Orders | 1,204 | 1,311 | 1,402 |", "| Returns | 31 | 28 | 25 |", "")
    if (i % 3 === 0) parts.push("```ts", `export const area${i} = (x: number) => x * ${i}`, "```", "")
    parts.push(`[^n${i}]: Figures are unaudited and rounded to the nearest unit.`, "")
  }
  return parts.join("\n")
}

/**
 * 200,000 characters of long-form prose as people write it: a heading every six paragraphs,
 * inline emphasis and code, a list every eight paragraphs, a table every twenty, a footnote
 * every ten.
 */
export const longDocument = (): string => {
  const chunks: Array<string> = ["---", "title: A Long Document", "---", ""]
  let length = 0
  for (let i = 1; length < 200_000; i++) {
    const block: Array<string> = []
    if (i % 6 === 1) block.push(`## Part ${i}`)
    block.push(paragraph(i).replace(`[^n${i}]`, i % 10 === 0 ? `[^n${i}]` : ""))
    if (i % 10 === 0) block.push(`[^n${i}]: A note on the method of part ${i}.`)
    if (i % 8 === 0) block.push("- the first consideration", "- the second consideration", "- a third, longer consideration that wraps")
    if (i % 20 === 0) block.push("| Item | Value |", "|:--|--:|", `| Alpha | ${i} |`, `| Beta | ${i * 2} |`)
    const chunk = `${block.join("\n\n")}\n\n`
    chunks.push(chunk)
    length += chunk.length
  }
  return chunks.join("\n").slice(0, 200_000)
}

/** The worst case we know: a footnote every ~200 characters (about 900 footnotes in 200,000). */
export const footnoteDense = (): string => {
  const chunks: Array<string> = []
  let length = 0
  for (let i = 1; length < 200_000; i++) {
    const chunk = [`# Chapter ${i}`, "", paragraph(i), "", `[^n${i}]: Note ${i}.`, ""].join("\n")
    chunks.push(chunk)
    length += chunk.length
  }
  return chunks.join("").slice(0, 200_000)
}

/**
 * A distinct variant of a document: every paragraph line gains a marker, so Typst's memoisation
 * cannot reuse the layout of an earlier iteration, as it could not for a new user's document.
 */
export const variant = (markdown: string, k: number): string =>
  markdown
    .split("\n")
    .map((line) => (/^[A-Za-z]/.test(line) && !/^[A-Za-z_-]+:/.test(line) ? `${line} (v${k})` : line))
    .join("\n")
    .slice(0, 200_000)

/** The résumé sample with a longer career: earlier roles that take it onto a second page. */
export const twoPageResume = (): string => {
  const roles = [
    "Platform Engineer — Northwind Logistics | 2014 – 2016",
    "Software Developer — Contoso Retail | 2012 – 2014",
    "Junior Developer — Fabrikam Media | 2010 – 2012",
    "Intern — Adventure Works | 2009"
  ]
  const earlier = roles.map((role) =>
    [
      `### ${role}`,
      "*London · Core team*",
      "",
      "- Built and ran the services behind the company's main product, from design reviews to on-call.",
      "- Replaced a nightly batch with streaming jobs; reports that took hours now update within minutes.",
      "- Mentored new joiners and wrote the onboarding guide still used by the team.",
      ""
    ].join("\n")
  )
  return `${example("resume")}\n\n## Earlier experience\n\n${earlier.join("\n")}\n`
}

/** Every script of the twelve locales, so that every font of the set gets loaded. */
export const allScripts =
  "English, Español, Français, Deutsch, Italiano, Português; Русский; Ελληνικά; العربية; हिन्दी; 日本語の文書; 简体中文文档; 한국어 문서. **Bold** *italic* `mono`"

export const documents = (): ReadonlyArray<BenchDocument> => [
  { name: "one-page letter", templateId: "coverletter", markdown: example("coverletter") },
  { name: "two-page resume", templateId: "resume", markdown: twoPageResume() },
  { name: "60-page report", templateId: "clean", markdown: report(150) },
  { name: "200,000-character document", templateId: "clean", markdown: longDocument() },
  { name: "200,000 characters, footnote every 200", templateId: "clean", markdown: footnoteDense() }
]
