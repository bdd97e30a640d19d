/**
 * A file's `pressroom:` block read from its front matter, with the line of each setting: what the
 * action annotates when it refuses one. Pure: no renderer (test/action/action.test.ts renders).
 */
import t from "tap"
import { InvalidPressroomBlock, lineOfField, readPressroomBlock } from "../../src/action/pressroom-block.ts"

const refusal = (markdown: string): { message: string; line: number } | undefined => {
  try {
    readPressroomBlock(markdown)
    return undefined
  } catch (error) {
    if (error instanceof InvalidPressroomBlock) return { message: error.message, line: error.line }
    throw error
  }
}

t.test("settings and the lines they are on", async (t) => {
  const markdown =
    "---\ntitle: A\npressroom:\n  locale: de\n  template: resume\n  options:\n    pageNumbers: true\n    creativeAccent: rose\n---\n# A\n"
  const block = readPressroomBlock(markdown)
  t.same(block, {
    locale: "de",
    template: "resume",
    options: { pageNumbers: true, creativeAccent: "rose" },
    lines: { block: 3, locale: 4, template: 5, options: 6, option: { pageNumbers: 7, creativeAccent: 8 } }
  })
  if (!block) return
  t.equal(lineOfField(block, "templateId"), 5)
  t.equal(lineOfField(block, "locale"), 4)
  t.equal(lineOfField(block, "options.creativeAccent"), 8)
  t.equal(lineOfField(block, "options"), 6)
  t.equal(lineOfField(block, "markdown"), undefined, "the Markdown's own length is no setting's")
})

t.test("lines count from the file's first line, also with CRLF line ends", async (t) => {
  t.equal(readPressroomBlock("---\r\npressroom:\r\n  template: clean\r\n---\r\nText\r\n")?.lines.template, 3)
})

t.test("no block: no front matter, front matter without it, or front matter the renderer ignores", async (t) => {
  t.equal(readPressroomBlock("# Title\n\npressroom: not front matter\n"), undefined)
  t.equal(readPressroomBlock("---\ntitle: A\n---\nText\n"), undefined)
  t.equal(readPressroomBlock("---\n- a list\n---\nText\n"), undefined)
  t.equal(readPressroomBlock("---\ntitle: [unclosed\n---\nText\n"), undefined)
})

t.test("a block that cannot be applied is refused on its line", async (t) => {
  t.same(refusal("---\ntitle: A\npressroom: resume\n---\n"), {
    message: "the pressroom block must be a mapping of template, locale and options",
    line: 3
  })
  t.same(refusal("---\npressroom:\n  template: clean\n  paper: a4\n---\n"), {
    message: "unknown pressroom setting 'paper' (it takes template, locale, options)",
    line: 4
  })
  t.same(refusal("---\npressroom:\n  template: [clean]\n---\n"), { message: "pressroom.template must be a name", line: 3 })
  t.same(refusal("---\npressroom:\n  options: true\n---\n"), {
    message: "pressroom.options must be a mapping of option names to values",
    line: 3
  })
})
