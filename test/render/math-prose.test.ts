/**
 * Dollar signs in prose stay prose in every template. Pandoc's rule (an opening `$` followed by a
 * non-space, a closing `$` preceded by a non-space and not followed by a digit) leaves each of
 * these prices alone, so a reader copying the paragraph out of the PDF gets it back exactly, dollar
 * signs and spacing included, and the render gives no warning. `\$` is a dollar sign too.
 */
import t from "tap"
import { TEMPLATE_IDS } from "../../src/render/catalog.ts"
import { Renderer } from "../../src/render/renderer.ts"
import { normalize, pageTexts } from "../helpers/pdf.ts"
import { mapLimit, testEngine } from "../helpers/render.ts"

const PRICES = "Pay US$ 3 or $1,200, a lone $ sign, $5-$10, between $3 and $4. The plan costs $5 and the upgrade $10."
// After an earlier price, `US$ 3` would close a formula by Pandoc's rule (its `$` follows a letter
// and is followed by a space): `costs $10. Pay US$ 3` reads `10. Pay US` as math, in Pandoc too.
// Escaped dollars are prose wherever they stand.
const ESCAPED = { markdown: "Escaped: costs \\$10. Pay US\\$ 3.", reads: "Escaped: costs $10. Pay US$ 3." }

/** The page text with hyphenation undone (a soft hyphen at a line end joins the word) and spaces collapsed. */
const readBack = (pdf: Uint8Array) =>
  normalize(
    pageTexts(pdf)
      .join("\n")
      .replace(/\u00ad\s*/gu, "")
  )

const renderer = await Renderer.create({ engine: testEngine, workers: 2, timeoutMs: 60_000 })
t.teardown(() => renderer.close())

t.test("prices read back exactly in every template", async (t) => {
  await mapLimit(TEMPLATE_IDS, 2, async (templateId) => {
    const { pdf, warnings } = await renderer.render({ markdown: `${PRICES}\n\n${ESCAPED.markdown}\n`, templateId })
    const text = readBack(pdf)
    t.same(warnings, [], `${templateId}: no warning`)
    t.ok(text.includes(PRICES), `${templateId}: the prices read back exactly`, { text })
    t.ok(text.includes(ESCAPED.reads), `${templateId}: escaped dollars read back as dollars`, { text })
  })
})
