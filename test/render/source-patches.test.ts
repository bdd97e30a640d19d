/**
 * The fixes carried for bundled packages (scripts/source-patches.ts) change how fast the parser
 * is, never what it reads: the parser bundled with them gives the same tree, positions included,
 * from events that are whole (each enter closed by its exit, no patch's own token left among them),
 * as the packages as published, for every CommonMark example, for GFM's constructs, for the
 * pathological corpus and for arbitrary inline Markdown; a package whose text moved fails the build
 * rather than running unpatched (that the build applies them: test/cli/build.test.ts).
 */
import t from "tap"
import spec from "commonmark-spec"
import { build } from "esbuild"
import fc from "fast-check"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { isDeepStrictEqual } from "node:util"
import type { Root } from "mdast"
import { buildOptions } from "../../scripts/build.ts"
import { applyPatch, SOURCE_PATCHES, sourcePatches } from "../../scripts/source-patches.ts"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { cutContainerMarkers } from "../../src/render/markdown/container-markers.ts"
import { parseTreeWhole } from "../../src/render/markdown/parse.ts"
import { pathologicalInputs } from "../fixtures/pathological.ts"
import { sampled, share } from "../helpers/sample.ts"
import type { TestContext } from "../helpers/tap.ts"

/** The patched parser's events for a document: what micromark hands mdast-util-from-markdown. */
type EventsOf = (markdown: string) => ReadonlyArray<readonly [string, { readonly type: string }]>

/** parse.ts bundled with the patches, as the render workers run it, and the events it builds a tree from. */
const { parseTreeWhole: patchedParseTree, eventsOf: patchedEvents } = await (async (): Promise<{
  parseTreeWhole: (markdown: string) => Root
  eventsOf: EventsOf
}> => {
  const out = mkdtempSync(join(tmpdir(), "pressroom-patched-parser-"))
  const entry = join(out, "entry.ts")
  const source = (path: string) => JSON.stringify(join(packageRoot, "src", "render", "markdown", path))
  writeFileSync(
    entry,
    [
      `export { parseTreeWhole } from ${source("parse.ts")}`,
      `import { parse, postprocess, preprocess } from "micromark"`,
      `import { frontmatter } from "micromark-extension-frontmatter"`,
      `import { gfm } from "micromark-extension-gfm"`,
      `import { mathSyntax } from ${source("math-syntax.ts")}`,
      "// As parse.ts has mdast-util-from-markdown parse it.",
      "export const eventsOf = (markdown) =>",
      `  postprocess(parse({ extensions: [frontmatter(["yaml"]), gfm(), mathSyntax()] }).document().write(preprocess()(markdown, undefined, true)))`
    ].join("\n")
  )
  await build({
    nodePaths: [join(packageRoot, "node_modules")],
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: join(out, "parse.mjs"),
    banner: buildOptions.banner,
    plugins: [sourcePatches],
    logLevel: "silent"
  })
  return (await import(pathToFileURL(join(out, "parse.mjs")).href)) as { parseTreeWhole: (markdown: string) => Root; eventsOf: EventsOf }
})()

/**
 * Whether the patched parser's events are whole: every enter closed by its exit, in order, and no
 * room a label start left (roomForMedia) among them. mdast-util-from-markdown passes over token
 * types it has no handler for, so a tree alone would not show either.
 */
const wholeEvents = (markdown: string): boolean => {
  const open: Array<{ readonly type: string }> = []
  for (const [kind, token] of patchedEvents(markdown)) {
    if (token.type === "pressroomMediaRoom") return false
    if (kind === "enter") open.push(token)
    else if (open.pop() !== token) return false
  }
  return open.length === 0
}

// Every span kept (parseTreeWhole): unwrapping deep spans would hide how the patched resolver nested them.
const sameTree = (t: TestContext, markdown: string, what: string) => {
  t.same(patchedParseTree(markdown), parseTreeWhole(markdown), what)
  t.ok(wholeEvents(markdown), `${what}: its events are whole`)
}

/**
 * Whether documents of up to maxLength pieces, joined and followed by after, parse to the same
 * tree patched and published, over numRuns arbitrary ones (fast-check prints the seed and the
 * document of a failure).
 */
const sameTrees = (piece: fc.Arbitrary<string>, maxLength: number, numRuns: number, after = "") =>
  fc.assert(
    fc.property(fc.array(piece, { maxLength }), (pieces) => {
      const markdown = `${pieces.join("")}${after}`
      return isDeepStrictEqual(patchedParseTree(markdown), parseTreeWhole(markdown)) && wholeEvents(markdown)
    }),
    { numRuns }
  )

t.test("every CommonMark example parses to the same tree", async (t) => {
  const examples = spec.tests as ReadonlyArray<{ markdown: string; number: number }>
  t.equal(examples.length, 652)
  for (const example of examples) sameTree(t, example.markdown, `example ${example.number}`)
})

t.test("GFM's constructs, and runs of data tokens beside them, parse to the same tree", async (t) => {
  const cases = [
    "| a | b |\n|---|:-:|\n| *x* | `y` |\n| [l](u) | ~~s~~ |\n",
    "- [ ] task\n- [x] done *em* **strong**\n",
    "www.example.com, https://a.b/c?d=e) and a@b.co.\n",
    "Text[^1] and more[^note].\n\n[^1]: One.\n[^note]: Two *notes*.\n",
    "~one~ ~~two~~ ~~~three~~~\n",
    "a * b _ c ` d [ e ] f ( g ) h < i > j & k ; l \\ m\n",
    "line one  \nline two\\\nline three\n",
    "$x^2$ and $$\\frac{a}{b}$$\n",
    "<div>\n*html*\n</div>\n\n<span>inline</span> text &amp; &#123; &copy;\n"
  ]
  for (const markdown of cases) sameTree(t, markdown, JSON.stringify(markdown))
})

t.test("the pathological corpus, cut to 20,000 characters, parses to the same tree", async (t) => {
  // The published parser is quadratic on most of these: a third in the main run (not the third
  // hostile-memory renders), all in the full job (docs/testing.md).
  const inputs = sampled(pathologicalInputs, 3, 1)
  t.comment(`${share(inputs.length, pathologicalInputs.length)} inputs`)
  // As parseMarkdown parses it: container markers past the hundredth cut first, else the tree's
  // depth alone overflows the stack, patched or not.
  for (const input of inputs) sameTree(t, cutContainerMarkers(input.markdown.slice(0, 20_000)), input.name)
})

t.test("arbitrary inline Markdown parses to the same tree", async (t) => {
  const piece = fc.constantFrom(
    "*",
    "**",
    "_",
    "~~",
    "`",
    "[",
    "]",
    "(",
    ")",
    "![",
    "<",
    ">",
    "\\",
    "&amp;",
    "a",
    "bc",
    " ",
    "\n",
    "www.x.io",
    "[^1]",
    "$"
  )
  sameTrees(piece, 60, 500)
  t.pass("500 arbitrary documents (fast-check prints the seed and the document of a failure)")
})

t.test("arbitrary runs of emphasis markers, the rule of three among them, parse to the same tree", async (t) => {
  // Runs on both sides nest groups in one pass (the attention patch); a run that can both open and
  // close, or lengths whose sum is a multiple of three, send the published loop past the pair.
  const piece = fc.constantFrom("*", "**", "***", "****", "_", "__", "___", "~~", "a", "b ", " ", ".", "\n", "`", "[x](y)")
  sameTrees(piece, 40, 1000)
  const runs = [
    `${"*".repeat(301)}deep${"*".repeat(300)}`,
    `${"_".repeat(40)}a *b* ~~c~~ ${"_".repeat(41)}`,
    "***a**b*c***",
    "**a***b***c**"
  ]
  for (const markdown of runs) {
    sameTree(t, markdown, JSON.stringify(markdown.slice(0, 40)))
  }
  t.pass("1,000 arbitrary documents of marker runs")
})

t.test("arbitrary brackets around literal autolinks and footnote calls parse to the same tree", async (t) => {
  // The two walks the bracket and footnote patches remember: an unclosed, closed or inactive `[`
  // or `![` before a literal (www., http, an e-mail address) or a `]` (a footnote call's end).
  const piece = fc.constantFrom(
    "[",
    "]",
    "![",
    "](u)",
    "](",
    ")",
    "[^1]",
    "![^1]",
    "^1",
    "www.a.io",
    "http://b.io",
    "c@d.io",
    "h",
    "w",
    "a",
    " ",
    "\n",
    "*",
    "`",
    "\\"
  )
  sameTrees(piece, 50, 1000, "\n\n[^1]: A note.\n")
  for (const markdown of [
    `${"[".repeat(300)}deep${"](https://example.com)".repeat(300)}`,
    `${"![".repeat(100)}deep${"](x.png)".repeat(100)} www.a.io`,
    "[a www.b.io [c](d) http://e.io] f@g.io ![^1] [x]",
    "![^1] [![^1]](u) www.a.io\n\n[^1]: Note."
  ]) {
    sameTree(t, markdown, JSON.stringify(markdown.slice(0, 40)))
  }
  t.pass("1,000 arbitrary documents of brackets, literals and calls")
})

t.test("arbitrary links and images, nested, referenced and around spans, parse to the same tree", async (t) => {
  // The label-end and label patches: closed media passed over by later walks and resolvers and
  // closed in place, a label looked up only where there are definitions, and a label's text read
  // only for a collapsed or shortcut reference.
  const piece = fc.constantFrom(
    "![",
    "[",
    "]",
    "](u)",
    "](<v w> 't')",
    "][a]",
    "][]",
    "[a]",
    "![a]",
    "[b c]",
    "*",
    "**",
    "_",
    "~~",
    "`",
    "x",
    " ",
    "\n",
    "&amp;",
    "\\]"
  )
  for (const definitions of ["", "\n\n[a]: /u\n[B  C]: /v 'T'\n"]) sameTrees(piece, 50, 1000, definitions)
  for (const markdown of [
    `${"![".repeat(200)}deep${"](x.png)".repeat(200)}`,
    `${"![*a ".repeat(50)}deep${"*](x.png)".repeat(50)}`,
    `${"![~~".repeat(50)}deep${"~~](x.png)".repeat(50)}`,
    `${"![".repeat(50)}deep${"][a]".repeat(50)}\n\n[a]: /u`,
    "![a ![b](u) c][a] [d ![e][] f](v) ![g]\n\n[a]: /u\n[e]: /w\n[g]: /x",
    // Label starts in every text a link may sit in, and everything a label may hold.
    "| [a](u) | ![b](v) [c |\n|---|---|\n| [d | ![e](w) |\n",
    "# [a](u) ![b](v) [c\n\nSetext [d](w) [e\n===\n",
    "Text[^1].\n\n[^1]: A [note](u) with ![an image](v) and [an open bracket.\n",
    "[a  \nb](u) [c\\\nd](v) ![e  \nf](w)",
    "[a `b](u)` c](v) ![d `](x)`](y)",
    "[a <https://b.io> c](u) [d <span>e</span> f](v) [$x$ g](w) [www.h.io i](x)",
    "![![^1] ![a](u)](v) [![^1]](w)\n\n[^1]: Note."
  ]) {
    sameTree(t, markdown, JSON.stringify(markdown.slice(0, 40)))
  }
  t.pass("2,000 arbitrary documents of links and images, with and without definitions")
})

t.test("lazy lines, in every block they may continue, parse to the same tree", async (t) => {
  // The lazy-line patch: the token an earlier walk found open across a lazy line answers for the
  // next while it is still in the flow's events and open; a run of them in each block they may
  // continue or end, then arbitrary containers and lines.
  const lazy = (count: number) => "lazy words\n".repeat(count)
  for (const [name, markdown] of [
    ["under a quote", `> a\n${lazy(100)}`],
    ["under two quotes, then more of the quote", `> > a\n${lazy(105)}> > b\n\nafter\n`],
    ["with CRLF line endings", `> a\r\n${"lazy\r\n".repeat(100)}`],
    ["two runs", `> a\n${lazy(100)}\n>> b\n${lazy(100)}- item\n`],
    ["in a list item", `- a\n${lazy(100)}- b\n  c\n${lazy(3)}`],
    ["after a fenced code block inside the quote", `> \`\`\`\n> a\n${lazy(100)}`],
    ["after a quote inside a fenced code block", `\`\`\`\n> a\n${lazy(100)}\`\`\`\n`],
    ["after an HTML block inside the quote", `> <div>\n> a\n${lazy(100)}`],
    ["after a table inside the quote", `> a | b\n> - | -\n> c | d\n${lazy(100)}`],
    ["a table's head made lazy", `> | e |\n${lazy(100)}`],
    ["followed by a setext underline", `> a\n${lazy(100)}===\n`],
    ["ended by a thematic break", `> a\n${lazy(50)}***\n${lazy(50)}`]
  ]) {
    sameTree(t, markdown!, name!)
  }
  const piece = fc.constantFrom(
    "> ",
    ">",
    "- ",
    "1. ",
    "  ",
    "    ",
    "a",
    "b c",
    "\n",
    "\n\n",
    "```",
    "~~~",
    "$$",
    "\t",
    "\r\n",
    "> - ",
    "| a |",
    "- | -",
    "<div>",
    "===",
    "***",
    "[^1]: "
  )
  sameTrees(piece, 60, 1000)
  t.pass("1,000 arbitrary documents of containers and lines")
})

t.test("a patch whose text is not in the file exactly once stops the build", async (t) => {
  const [patch] = SOURCE_PATCHES
  t.throws(() => applyPatch("a file of another release", patch!), /no longer holds the text scripts\/source-patches.ts replaces/)
  t.throws(() => applyPatch(patch!.original + patch!.original, patch!), /no longer holds the text/)
  t.equal(applyPatch(`before\n${patch!.original}after`, patch!), `before\n${patch!.replacement}after`)
})
