/**
 * Writes src/render/template-id.ts, the `TemplateId` type, from typst-templates/catalog.json: a
 * JSON import types each id as `string`, so the union a caller's editor completes and a typo fails
 * against has to be written out. Run after changing the catalog: `npm run catalog:ids`
 * (test/render/templates.test.ts fails until then).
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import catalogJson from "../typst-templates/catalog.json" with { type: "json" }
import { packageRoot } from "../src/render/fonts/manifest.ts"

const ids = catalogJson.templates.map((template) => JSON.stringify(template.id))
const source = `// Written by \`npm run catalog:ids\` (scripts/template-ids.ts) from typst-templates/catalog.json; do not edit.
/** The id of a template of the catalog. */
export type TemplateId =
${ids.map((id) => `  | ${id}`).join("\n")}
`
writeFileSync(join(packageRoot, "src", "render", "template-id.ts"), source)
console.log(`src/render/template-id.ts: ${ids.length} template ids`)
