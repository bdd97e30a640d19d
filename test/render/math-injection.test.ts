/**
 * Nothing written in a formula can become Typst code, a label, a reference or a file path. Each
 * payload either is refused (the converter then shows the source as code) or converts to markup
 * whose every name is a single letter or one of the converter's own, with all other text inside
 * string literals; and that markup, inline and display, compiles without an error or warning, so
 * nothing was evaluated (a `#read` would fail to find its file; a label or reference would fail
 * or warn).
 */
import t from "tap"
import { latexToTypst, type MathResult } from "../../src/render/math/latex-to-typst.ts"
import { loadLatexParser } from "../../src/render/math/latex-parser.ts"
import { mathSafetyProblems } from "../helpers/math-safety.ts"
import { mathDocument, startTypstChecker } from "../helpers/typst-check.ts"

await loadLatexParser()

const PAYLOADS: ReadonlyArray<string> = [
  '#read("/etc/passwd")',
  '\\#eval("1")',
  "\\text{#sys.inputs}",
  "x <label>",
  "@ref",
  "{x",
  "x}",
  "\\def\\x{1}",
  "\\newcommand{\\x}{1}",
  "\\input{/etc/passwd}",
  "\\include{/etc/passwd}",
  "\\href{http://x}{y}",
  "\\url{http://x}",
  "\\catcode`\\#=11",
  `${"{".repeat(10_000)}x${"}".repeat(10_000)}`,
  `${"{".repeat(60)}x${"}".repeat(60)}`,
  '"',
  '\\text{"}',
  "\\text{\\\\}",
  "$",
  "x".repeat(200_000),
  "\\operatorname{#x}",
  '\\operatorname{"+read("x")+"}',
  "\\mathrm{<x>}",
  "\\label{<a>}",
  "\\tag{#x}",
  "\\eqref{<x>} \\ref{@y}",
  '\\text{"#read("/etc/passwd")"}',
  "\\text{\\#} \\# \\$ \\% \\& \\_",
  "\\text{a\u0001b} x\u0007y",
  "\\text{\ud800}",
  "#{1} #let x = 1",
  '$#image("x")$',
  "*/ // #let x = 1",
  "\\mathbb{#} \\sqrt[#x]{<y>} x_# x^@",
  "\\begin{#x} y \\end{#x}",
  '\\begin{pmatrix} #x & "y \\\\ <z> & @w \\end{pmatrix}',
  "\\begin{cases} #x & <y> \\end{cases}",
  "\\left< x \\right>",
  "\\left\\langle #x \\right\\rangle",
  "α + ∞ = 中",
  "\\text{\\textbackslash} \\backslash",
  "a \\\\ b & c",
  // Arguments that reach code the converter builds (code.ts): colours, lengths, column specifications.
  '\\color{red"); #read("x} y',
  '\\textcolor{#fff" + read("x")}{x}',
  "\\colorbox{red}{#sys.inputs} \\fcolorbox{red]}{blue}{x}",
  '\\kern1em#x \\hspace{1em); #eval("1")} \\mkern{3mu}',
  "\\rule{1em}{1pt]#x} \\rule[#x]{1em}{1pt}",
  '\\begin{array}{c"} x \\end{array} \\begin{array}{c|c} #x & <y> \\\\ \\hline @z & $ \\end{array}',
  "\\begin{pmatrix*}[#x] a \\end{pmatrix*}",
  "\\text{if $#x$ and $<y>$} \\tag{$#z$}",
  "\\operatorname{#x_<y>} \\mathop{#x} \\boxed{@y} \\phantom{$} \\Huge #x"
]

/** The conversion, or undefined when refused (the assertion then shows the difference). */
const value = (result: MathResult) => (result.ok ? result.value : undefined)

t.test("each payload is refused or converts to markup that holds no code, label or reference", async (t) => {
  const check = await startTypstChecker()
  for (const payload of PAYLOADS) {
    const name = payload.length > 60 ? `${payload.slice(0, 30)}… (${payload.length} characters)` : payload
    for (const mode of ["inline", "display"] as const) {
      const result = latexToTypst(payload, mode)
      if (!result.ok) {
        t.ok(result.reason.length > 0, `${mode} ${name}: refused (${result.reason})`)
        continue
      }
      t.same(mathSafetyProblems(result.value.typst), [], `${mode} ${name}: ${JSON.stringify(result.value.typst)}`)
      // Code the converter writes around a nested formula (`#text(fill: rgb("#…"))[$…$]`, `#h(1em)`) is mathSafetyProblems's to check.
      if (!/#(?:text|box|h|hide)\b|augment|size: #|align: #|reverse: #/.test(result.value.typst))
        t.notOk(
          /[#<>@$]/.test(result.value.typst.replace(/"(?:[^"\\]|\\.)*"/g, "").replace(/#pr\.math-text\((?:, (?:weight|style): )?\)/g, "")),
          `${mode} ${name}: no # < > @ $ outside strings`
        )
      const typst = result.value.typst.replace(/\u0000ref\d+\u0000/g, '"(1)"')
      t.same(
        check(mathDocument([{ typst, display: mode === "display" }])),
        { errors: [], warnings: [] },
        `${mode} ${name}: compiles cleanly`
      )
    }
  }
})

t.test("the payloads that must be refused are, with their reasons", async (t) => {
  const refused: ReadonlyArray<readonly [string, string]> = [
    ["{x", "unbalanced braces"],
    ["x}", "unbalanced braces"],
    ["\\def\\x{1}", "unsupported command \\def"],
    ["\\newcommand{\\x}{1}", "unsupported command \\newcommand"],
    ["\\input{/etc/passwd}", "unsupported command \\input"],
    ["\\href{http://x}{y}", "unsupported command \\href"],
    [`${"{".repeat(10_000)}x${"}".repeat(10_000)}`, "longer than 10000 characters"],
    [`${"{".repeat(4_000)}x${"}".repeat(4_000)}`, "nested deeper than 64 levels"],
    ["x".repeat(200_000), "longer than 10000 characters"],
    ["\\text{\\\\}", "only plain text inside \\text"],
    ["\\begin{#x} y \\end{#x}", "unsupported environment #x"],
    ["\\left< x \\right>", "\\left, \\right or a size command before something that is not a delimiter"]
  ]
  for (const [payload, reason] of refused) t.same(latexToTypst(payload, "display"), { ok: false, reason }, payload.slice(0, 40))
})

t.test("user text comes back as data: as string literals, or as the label, tag and reference keys", async (t) => {
  t.same(value(latexToTypst('#read("/etc/passwd")', "inline"))?.typst, '"#"r e a d paren.l"\\""slash e t c slash p a s s w d"\\""paren.r')
  t.same(value(latexToTypst("\\text{#sys.inputs}", "inline"))?.typst, '#pr.math-text("#sys.inputs")')
  t.same(value(latexToTypst('\\color{red"); #read("x} y', "inline")), undefined, "a colour that is not one is refused")
  t.same(value(latexToTypst("\\text{if $#x$}", "inline"))?.typst, '#pr.math-text("if ")"#"x')
  t.same(value(latexToTypst("x <label>", "inline"))?.typst, "x lt l a b e l gt")
  t.same(value(latexToTypst("@ref", "inline"))?.typst, '"@"r e f')
  t.same(value(latexToTypst('"', "inline"))?.typst, '"\\""')
  t.same(value(latexToTypst("$", "inline"))?.typst, '"$"')
  t.same(value(latexToTypst("\\operatorname{#x}", "inline"))?.typst, 'op("#x")')
  t.same(value(latexToTypst("\\mathrm{<x>}", "inline"))?.typst, "upright(lt x gt)")
  t.same(value(latexToTypst("\\text{a\u0001b}", "inline"))?.typst, '#pr.math-text("a\\u{1}b")')
  t.same(value(latexToTypst("\\label{<a>}", "display")), {
    typst: "",
    tag: null,
    tagMath: null,
    notag: false,
    label: "<a>",
    references: []
  })
  t.same(value(latexToTypst("\\tag{#x}", "display")), { typst: "", tag: "#x", tagMath: null, notag: false, label: null, references: [] })
  t.same(value(latexToTypst("\\eqref{<x>} \\ref{@y}", "inline"))?.references, [
    { key: "<x>", eqref: true },
    { key: "@y", eqref: false }
  ])
})
