/** The resource pressroom://guides/markdown: the Markdown that typesets well, for a model writing it. */
import { MAX_MARKDOWN_CHARACTERS } from "../render/markdown-length.ts"

export const MARKDOWN_GUIDE = `# Writing Markdown for Pressroom

Pressroom typesets CommonMark with GitHub's extensions into a PDF through a Typst template. Write
plain, well-structured Markdown; the template does the design.

## Structure
- One \`#\` heading for the title only when the document has no front matter title; use \`##\` for
  sections and \`###\` for subsections. Every heading goes into the PDF outline.
- Paragraphs, **bold**, *italic*, \`code\`, ~~strikethrough~~, links \`[text](https://…)\`.
- Lists (\`-\`, \`1.\`), task lists (\`- [x]\`), block quotes (\`>\`), fenced code blocks with a language.
- Tables in GitHub's pipe syntax, with a header row and \`:---:\` alignment.
- Footnotes: \`text[^1]\` and, anywhere, \`[^1]: the note\`.
- \`<!-- pagebreak -->\` on its own line starts a new page.

## Math
- Inline \`$E = mc^2$\`, display \`$$ \\int_0^1 x^2 \\, dx = \\tfrac13 $$\` on lines of their own.
- LaTeX syntax (fractions, roots, sums, integrals, Greek letters, matrices, \`\\text{}\`); a formula
  that cannot be converted is shown as its source with a warning.

## Front matter
YAML between \`---\` lines at the very top sets the template's title block, for example:

\`\`\`
---
title: Quarterly report
author: Ada Lovelace
date: 2026-11-27
---
\`\`\`

Each template reads its own keys (a résumé: name, headline, email, phone, location, links): read
\`pressroom://templates/{templateId}\`. Values are shown as plain text, never as Markdown. Front
matter that is not a mapping is ignored with a warning.

## What is refused or dropped
- More than ${MAX_MARKDOWN_CHARACTERS.toLocaleString("en")} characters, or empty Markdown: the call fails (invalid_request).
- Raw HTML is not rendered (a warning says so), except the page break comment above.
- Images only from \`data:\` URIs (PNG, JPEG, GIF, SVG); nothing is fetched, so a remote image
  leaves its alt text and a warning.
- Characters no bundled font has are reported as a missing_glyphs warning.

Warnings come back with the job (\`warnings\`, each with its line): read them and fix the source.
`
