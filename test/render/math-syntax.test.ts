/**
 * Math in Markdown as parseMarkdown reads it (math-syntax.ts): which text becomes a formula, of
 * which kind, with what value, and which stays prose, compared strictly on the mdast.
 *
 * The `$…$` rule is Pandoc's `tex_math_dollars` (https://pandoc.org/MANUAL.html#math): "The opening
 * $ must have a non-space character immediately to its right, while the closing $ must have a
 * non-space character immediately to its left, and must not be followed immediately by a digit.
 * Thus, $20,000 and $30,000 won't parse as math." Every prose sentence below was run through pandoc
 * 2.17.1.1 (`pandoc -f markdown -t native`) and has no Math node there either; the one shell line
 * Pandoc reads as math (`PATH=$PATH:$HOME/bin`) is asserted as math here too, since that is the rule.
 */
import spec from "commonmark-spec"
import type { List, Nodes, Paragraph, PhrasingContent, RootContent } from "mdast"
import type { Math as MathNode } from "mdast-util-math"
import t from "tap"
import { parseMarkdown } from "../../src/render/markdown/parse.ts"

/** The tree without positions (asserted on their own below). */
const tree = (markdown: string): Array<RootContent> =>
  JSON.parse(JSON.stringify(parseMarkdown(markdown).root.children, (key, value) => (key === "position" ? undefined : value)))

const text = (value: string): PhrasingContent => ({ type: "text", value })
const inline = (value: string): PhrasingContent => ({ type: "inlineMath", value })
const displayInline = (value: string): PhrasingContent => ({ type: "inlineMath", value, data: { display: true } })
const block = (value: string): MathNode => ({ type: "math", meta: null, value })
const paragraph = (...children: Array<PhrasingContent>): Paragraph => ({ type: "paragraph", children })

const hasMath = (node: Nodes): boolean =>
  node.type === "math" || node.type === "inlineMath" || ("children" in node && node.children.some(hasMath))

t.test("inline formulas: $…$ by Pandoc's rule", async (t) => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<PhrasingContent>]> = [
    ["Show that $x^2 + y^2 = z^2$ holds.", [text("Show that "), inline("x^2 + y^2 = z^2"), text(" holds.")]],
    ["$a$", [inline("a")]],
    ["$\\alpha$, $\\beta$ and $\\gamma$.", [inline("\\alpha"), text(", "), inline("\\beta"), text(" and "), inline("\\gamma"), text(".")]],
    ["the price $p$, then $q$.", [text("the price "), inline("p"), text(", then "), inline("q"), text(".")]],
    ["$x$-axis", [inline("x"), text("-axis")]],
    ["($x$)", [text("("), inline("x"), text(")")]],
    ["$f(x) = \\frac{1}{2}$", [inline("f(x) = \\frac{1}{2}")]],
    ["over two lines $a +\nb$ here", [text("over two lines "), inline("a +\nb"), text(" here")]],
    ["$a\\$b$ keeps the escaped dollar", [inline("a\\$b"), text(" keeps the escaped dollar")]],
    ["$a\\ $ ends with a TeX space", [inline("a\\ "), text(" ends with a TeX space")]],
    ["$a \\\\ b$", [inline("a \\\\ b")]],
    ["$x <label>$ and $@ref$", [inline("x <label>"), text(" and "), inline("@ref")]],
    ['$#read("/etc/passwd")$', [inline('#read("/etc/passwd")')]],
    ["$*a* and _b_$", [inline("*a* and _b_")]],
    ["$[a](b)$", [inline("[a](b)")]],
    ["$x$.5", [inline("x"), text(".5")]],
    ["export PATH=$PATH:$HOME/bin", [text("export PATH="), inline("PATH:"), text("HOME/bin")]]
  ]
  for (const [markdown, children] of cases) t.strictSame(tree(markdown), [paragraph(...children)], markdown)
})

t.test("a formula over lines of a block quote or a table cell holds only its own text", async (t) => {
  t.strictSame(tree("> $a\n> b$ and $$c\n> d$$"), [
    { type: "blockquote", children: [paragraph(inline("a\nb"), text(" and "), displayInline("c\nd"))] }
  ])
  const cells = (markdown: string) => {
    const [table] = tree(markdown)
    return table?.type === "table" ? table.children[1]?.children.map((cell) => cell.children) : undefined
  }
  t.strictSame(
    cells("| a | b |\n|---|---|\n| $x \\| y$ | $`\\|a\\|`$ |"),
    [[inline("x | y")], [inline("|a|")]],
    "an escaped pipe is the formula's"
  )
  t.strictSame(cells("| a | b |\n|---|---|\n| $x | y$ |"), [[text("$x")], [text("y$")]], "a pipe ends the cell first")
  t.strictSame(cells("| a |\n|---|\n| $\\\\$ |"), [[inline("\\\\")]], "a TeX line break stays")
})

t.test("GitHub's $`…`$: the formula between the backticks, taken literally", async (t) => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<PhrasingContent>]> = [
    ["$`\\sqrt{3}`$", [inline("\\sqrt{3}")]],
    ["is $`a $ b`$ here", [text("is "), inline("a $ b"), text(" here")]],
    ["$``a`b``$", [inline("a`b")]],
    ["$` x `$", [inline(" x ")]],
    ["$`*not emphasis*`$", [inline("*not emphasis*")]],
    // Not closed by `$: the dollar is text and the backticks a code span.
    ["$`a` and", [text("$"), { type: "inlineCode", value: "a" }, text(" and")]],
    ["$` `$", [text("$"), { type: "inlineCode", value: " " }, text("$")]],
    // The first run of as many backticks ends it, as it ends a code span.
    ["$`a`b`$", [text("$"), { type: "inlineCode", value: "a" }, text("b`$")]]
  ]
  for (const [markdown, children] of cases) t.strictSame(tree(markdown), [paragraph(...children)], markdown)
})

t.test("$$…$$ in a paragraph: inline math marked display, the formula trimmed", async (t) => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<PhrasingContent>]> = [
    ["so $$x = 1$$ follows", [text("so "), displayInline("x = 1"), text(" follows")]],
    ["so $$ x = 1 $$.", [text("so "), displayInline("x = 1"), text(".")]],
    ["a $$x$5$$ b", [text("a "), displayInline("x$5"), text(" b")]],
    ["Let $x$ be such that\n$$x = y + 2$$", [text("Let "), inline("x"), text(" be such that\n"), displayInline("x = y + 2")]],
    ["text $$a\nb$$", [text("text "), displayInline("a\nb")]]
  ]
  for (const [markdown, children] of cases) t.strictSame(tree(markdown), [paragraph(...children)], markdown)
})

t.test("display blocks: closed $$ fences, and a paragraph of one $$…$$", async (t) => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<RootContent>]> = [
    ["$$\n\\int_0^1 x^2 \\, dx = \\frac{1}{3}\n$$", [block("\\int_0^1 x^2 \\, dx = \\frac{1}{3}")]],
    ["$$\na = b\n\\\\\nc = d\n$$", [block("a = b\n\\\\\nc = d")]],
    ["$$ x = 1 $$", [block("x = 1")]],
    ["$$x$$", [block("x")]],
    ["$$\\sum_{k=1}^n k$$\n", [block("\\sum_{k=1}^n k")]],
    ["$$  \nx\n$$  ", [block("x")]],
    ["  $$\n  x\n   y\n  $$", [block("x\n y")]],
    ["$$$\nx\n$$\n$$$", [block("x\n$$")]],
    ["$$\nx\n$$$", [block("x")]],
    ["$$\n$$", [block("")]],
    ["$$\na\n\nb\n$$", [block("a\n\nb")]],
    ["$$\n`x` *y* <b> [z](u)\n$$", [block("`x` *y* <b> [z](u)")]],
    // A paragraph between `$$` and `$$` is one display formula (Pandoc's rule for `$$` has no flanking conditions).
    ["$$ signs everywhere\nand more text\n$$", [block("signs everywhere\nand more text")]],
    ["$$\nx\n    $$", [block("x")]],
    // A lazy line ends the fence, which so never closes; the paragraph it leaves is one `$$…$$`.
    ["> $$\n> a\nb\n> $$", [{ type: "blockquote", children: [block("a\nb")] }]],
    ["Before\n$$\nx\n$$\nafter", [paragraph(text("Before")), block("x"), paragraph(text("after"))]],
    ["> $$\n> x\n> $$", [{ type: "blockquote", children: [block("x")] }]],
    [
      "- $$\n  x\n  $$",
      [
        {
          type: "list",
          ordered: false,
          start: null,
          spread: false,
          children: [{ type: "listItem", spread: false, checked: null, children: [block("x")] }]
        }
      ]
    ],
    ["# $$x$$", [{ type: "heading", depth: 1, children: [displayInline("x")] }]]
  ]
  for (const [markdown, expected] of cases) t.strictSame(tree(markdown), expected, markdown)
})

t.test("$$ lines that no line closes stay prose", async (t) => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<RootContent>]> = [
    ["$$\nunclosed", [paragraph(text("$$\nunclosed"))]],
    ["$$", [paragraph(text("$$"))]],
    ["$$ signs everywhere\nand more text", [paragraph(text("$$ signs everywhere\nand more text"))]],
    ["Before\n$$\nafter", [paragraph(text("Before\n$$\nafter"))]],
    ["> $$\n> x\n\n$$", [{ type: "blockquote", children: [paragraph(text("$$\nx"))] }, paragraph(text("$$"))]],
    ["$$\nx\n\ny", [paragraph(text("$$\nx")), paragraph(text("y"))]],
    [
      "- $$\n- b",
      [
        {
          type: "list",
          ordered: false,
          start: null,
          spread: false,
          children: [
            { type: "listItem", spread: false, checked: null, children: [paragraph(text("$$"))] },
            { type: "listItem", spread: false, checked: null, children: [paragraph(text("b"))] }
          ]
        }
      ]
    ]
  ]
  for (const [markdown, expected] of cases) t.strictSame(tree(markdown), expected, markdown)
})

t.test("GFM's task list items keep their text as before: the math extension replaces none of GFM's handlers", async (t) => {
  const items = tree("- [x] done\n- [ ] todo $x$\n")[0] as List
  t.same(
    items.children.map((item) => [item.checked, (item.children[0] as Paragraph).children]),
    [
      [true, [text("done")]],
      [false, [text("todo "), inline("x")]]
    ]
  )
})

t.test("```math fences stay code blocks for the converter", async (t) => {
  t.strictSame(tree("```math\n\\frac{a}{b} $x$\n```"), [{ type: "code", lang: "math", meta: null, value: "\\frac{a}{b} $x$" }])
  t.strictSame(tree("~~~math\n$$\n~~~"), [{ type: "code", lang: "math", meta: null, value: "$$" }])
})

t.test("code, links and escapes are never math", async (t) => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<RootContent>]> = [
    ["`$x$`", [paragraph({ type: "inlineCode", value: "$x$" })]],
    ["``$$x$$``", [paragraph({ type: "inlineCode", value: "$$x$$" })]],
    ["$a `b$` c", [paragraph(text("$a "), { type: "inlineCode", value: "b$" }, text(" c"))]],
    ["$$a `b$$` c", [paragraph(text("$$a "), { type: "inlineCode", value: "b$$" }, text(" c"))]],
    ["```\n$x$\n$$\ny\n$$\n```", [{ type: "code", lang: null, meta: null, value: "$x$\n$$\ny\n$$" }]],
    ["    $x$\n    $$", [{ type: "code", lang: null, meta: null, value: "$x$\n$$" }]],
    [
      "[link](https://example.com/$x$)",
      [paragraph({ type: "link", url: "https://example.com/$x$", title: null, children: [text("link")] })]
    ],
    [
      "<https://example.com/$a$b>",
      [paragraph({ type: "link", url: "https://example.com/$a$b", title: null, children: [text("https://example.com/$a$b")] })]
    ],
    [
      "see https://example.com/$a$b now",
      [
        paragraph(
          text("see "),
          { type: "link", url: "https://example.com/$a$b", title: null, children: [text("https://example.com/$a$b")] },
          text(" now")
        )
      ]
    ],
    ["\\$x$", [paragraph(text("$x$"))]],
    ["\\$5 and \\$10", [paragraph(text("$5 and $10"))]],
    ["\\$x\\$", [paragraph(text("$x$"))]],
    ["$$x\\$$", [paragraph(text("$$x$$"))]]
  ]
  for (const [markdown, expected] of cases) t.strictSame(tree(markdown), expected, markdown)
})

t.test("dollar signs in prose stay prose, as written", async (t) => {
  const sentences = [
    "The plan costs $5 and the upgrade $10",
    "The plan costs $5 and the upgrade $10.",
    "It costs $1,200 a year.",
    "$20,000 and $30,000 won't parse as math.",
    "US$ 3 per unit.",
    "A lone $ sign.",
    "$",
    "Pay $ 5 at the door.",
    "The book costs $5.",
    "Tickets are $5-$10.",
    "Somewhere between $3 and $4.",
    "The symbol ($) marks a price.",
    "Set $HOME and $PATH before running the script.",
    "echo $USER is $SHELL",
    "Salaries range from $50,000 to $70,000 a year.",
    "I have $3 and you have $4.",
    "Prices: $9.99, $19.99 and $29.99.",
    "A$50 and NZ$60 are close.",
    "Costs rose from $1.5M to $2M.",
    "Revenue was $3bn, up from $2bn.",
    "The fee is $5/month or $50/year.",
    "$5 off when you spend $50.",
    "Save $$$ today.",
    "Only $$ alone.",
    "Costs in $$ and in euros.",
    "Buy 2 for $3.",
    "The $ sign and the € sign.",
    "$100",
    "$5, $10, $20 tiers.",
    "Between $5 and$10 per hour.",
    "From $0.99 per song.",
    "He paid $5;she paid $6.",
    "It's $5—a bargain—or $6 with tax.",
    "(US$5)",
    "Price: 5$",
    "Earn 5$ or 10$ per click.",
    "A $-5 discount.",
    "CA$ 1.35 = US$ 1",
    "Mortgage: $350k at 6%, or $2,100/mo.",
    "Set PS1='$ ' in your shell.",
    "The variables $a and $b are set.",
    "Cost is $5 (was $7).",
    "Budget $1M–$2M.",
    "$5/$10 tiers.",
    "The $20 bill and the $50 bill.",
    "Paid $5 in Q1 and $6 in Q2.",
    "A $ in the middle and another $ here.",
    "Gas is $3.50/gal; diesel $4.10/gal.",
    "Dollars: $1 $2 $3."
  ]
  t.ok(sentences.length >= 40)
  for (const sentence of sentences) t.strictSame(tree(sentence), [paragraph(text(sentence))], sentence)
  t.strictSame(tree("A price over\ntwo lines: $5 and\n$10 more."), [paragraph(text("A price over\ntwo lines: $5 and\n$10 more."))])
  t.strictSame(tree("> Costs $5 and $10.\n> - $3 or $4"), [
    {
      type: "blockquote",
      children: [
        paragraph(text("Costs $5 and $10.")),
        {
          type: "list",
          ordered: false,
          start: null,
          spread: false,
          children: [{ type: "listItem", spread: false, checked: null, children: [paragraph(text("$3 or $4"))] }]
        }
      ]
    }
  ])
})

t.test("formulas carry their lines, for warnings", async (t) => {
  const root = parseMarkdown("Intro\n\nSee $a$ and\n$$b$$.\n\n$$\nc\n$$\n\n$$ d $$").root
  const [, inlines, fenced, alone] = root.children
  const spans = inlines?.type === "paragraph" ? inlines.children.filter((node) => node.type === "inlineMath") : []
  t.strictSame(
    spans.map((node) => [node.value, node.position?.start.line, node.position?.end.line]),
    [
      ["a", 3, 3],
      ["b", 4, 4]
    ]
  )
  t.strictSame([fenced?.type, fenced?.position?.start.line, fenced?.position?.end.line], ["math", 6, 8])
  t.strictSame([alone?.type, alone?.position?.start.line, alone?.position?.start.column], ["math", 10, 1])
})

t.test("no example of the CommonMark spec holds math", async (t) => {
  const examples = spec.tests as ReadonlyArray<{ markdown: string; number: number }>
  t.ok(
    examples.some((example) => example.markdown.includes("$")),
    "some use dollar signs"
  )
  t.strictSame(
    examples.filter((example) => hasMath(parseMarkdown(example.markdown).root)).map((example) => example.number),
    []
  )
})

t.test("formulas that never close cost no more than other text", async (t) => {
  // Each attempt ends at the next run of dollars or backticks: reading on to the paragraph's end
  // from every opening took minutes here for a paragraph of unclosed `` $` `` (quadratic time).
  const unclosed = ["$`a ".repeat(15_000), "$``a $`b ".repeat(6_000), `$$ ${"$a ".repeat(20_000)}`, `$$\n${"x\n".repeat(30_000)}`]
  for (const markdown of unclosed) {
    const started = performance.now()
    const root = parseMarkdown(markdown).root
    t.ok(performance.now() - started < 10_000, `${JSON.stringify(markdown.slice(0, 12))}…: parsed in under 10 s`)
    t.ok(root.children.length > 0)
  }
})
