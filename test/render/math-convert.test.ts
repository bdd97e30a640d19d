/**
 * LaTeX formulas into Typst math (src/render/math): the exact markup for every supported construct,
 * the number, label and references a display formula carries, and the refusals with their reasons.
 * That this markup typesets is the corpus test's concern (math-corpus.test.ts).
 */
import t from "tap"
import { latexToTypst, REF_PLACEHOLDER } from "../../src/render/math/latex-to-typst.ts"
import { loadLatexParser } from "../../src/render/math/latex-parser.ts"

await loadLatexParser()

const CONVERSIONS: ReadonlyArray<readonly [string, string]> = [
  // Letters one at a time (Typst reads `ab` as one name), numbers whole, signs by name.
  ["ab + 12.5", "a b plus 12.5"],
  ["x - y = z", "x minus y eq z"],
  ["a < b > c", "a lt b gt c"],
  [
    "f(x), [a; b]: c! d? |x| a/b a*b .",
    'f paren.l x paren.r comma bracket.l a semi b bracket.r colon c excl d quest class("normal", bar.v) x class("normal", bar.v) a slash b a ast.op b dot.basic'
  ],
  ["a~b", "a space.nobreak b"],
  // Fractions and binomials.
  ["\\frac{a}{b}", "frac(a, b)"],
  ["\\frac12", "frac(1, 2)"],
  ["\\dfrac{a}{b}", "display(frac(a, b))"],
  ["\\tfrac{a}{b}", "inline(frac(a, b))"],
  ["\\cfrac{1}{1+x}", "display(frac(1, 1 plus x))"],
  ["\\binom{n}{k}", "binom(n, k)"],
  ["\\dbinom{n}{k}", "display(binom(n, k))"],
  ["\\tbinom{n}{k}", "inline(binom(n, k))"],
  // Roots.
  ["\\sqrt{x}", "sqrt(x)"],
  ["\\sqrt[3]{x}", "root(3, x)"],
  ["\\sqrt x", "sqrt(x)"],
  // Scripts and primes.
  ["x^2", "x^(2)"],
  ["x_i^2", "x_(i)^(2)"],
  ["x^2_i", "x_(i)^(2)"],
  ["x^{n+1}", "x^(n plus 1)"],
  ["a_{ij}", "a_(i j)"],
  ["x^\\alpha", "x^(alpha)"],
  ["e^{-x^2}", "e^(minus x^(2))"],
  ["f'(x) + f''", "f' paren.l x paren.r plus f''"],
  ["{a+b}^2", "attach(a plus b, t: 2)"],
  ["{x^2}^3", "attach(x^(2), t: 3)"],
  ["{}^{14}_{6}C", '""_(6)^(14) C'],
  // Greek.
  ["\\alpha \\beta \\gamma \\delta \\epsilon \\varepsilon \\zeta \\eta", "alpha beta gamma delta epsilon.alt epsilon zeta eta"],
  ["\\theta \\vartheta \\iota \\kappa \\lambda \\mu \\nu \\xi", "theta theta.alt iota kappa lambda mu nu xi"],
  ["\\pi \\varpi \\rho \\varrho \\sigma \\varsigma \\tau \\upsilon", "pi pi.alt rho rho.alt sigma sigma.alt tau upsilon"],
  ["\\phi \\varphi \\chi \\psi \\omega", "phi.alt phi chi psi omega"],
  [
    "\\Gamma \\Delta \\Theta \\Lambda \\Xi \\Pi \\Sigma \\Upsilon \\Phi \\Psi \\Omega",
    "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega"
  ],
  // Relations, operators, arrows, sets and logic.
  [
    "\\le \\leq \\ge \\geq \\neq \\ne \\approx \\equiv \\sim \\simeq \\cong \\propto",
    "lt.eq lt.eq gt.eq gt.eq eq.not eq.not approx equiv tilde.op tilde.eq tilde.equiv prop"
  ],
  [
    "\\ll \\gg \\prec \\succ \\preceq \\succeq \\mid \\parallel \\perp",
    "lt.double gt.double prec succ prec.eq succ.eq divides parallel perp"
  ],
  [
    "\\in \\notin \\ni \\subset \\supset \\subseteq \\supseteq \\subsetneq",
    "in in.not in.rev subset supset subset.eq supset.eq subset.neq"
  ],
  ["\\cup \\cap \\setminus \\emptyset \\varnothing", "union inter without emptyset diameter"],
  [
    "\\to \\rightarrow \\leftarrow \\leftrightarrow \\Rightarrow \\Leftarrow \\Leftrightarrow",
    "arrow.r arrow.r arrow.l arrow.l.r arrow.r.double arrow.l.double arrow.l.r.double"
  ],
  [
    "\\iff \\implies \\mapsto \\longrightarrow \\uparrow \\downarrow \\rightleftharpoons",
    "arrow.l.r.double.long arrow.r.double.long arrow.r.bar arrow.r.long arrow.t arrow.b harpoons.rtlb"
  ],
  [
    "\\infty \\partial \\nabla \\forall \\exists \\neg \\land \\lor \\wedge \\vee",
    "infinity partial nabla forall exists not and or and or"
  ],
  ["\\cdot \\times \\div \\pm \\mp \\circ \\oplus \\otimes \\ast", "dot.op times div plus.minus minus.plus compose plus.o times.o ast.op"],
  ["\\hbar \\ell \\aleph \\Re \\Im \\angle \\degree \\therefore", "planck ell aleph Re Im angle degree therefore"],
  ["\\ldots \\dots \\cdots \\vdots \\ddots", "dots.h dots.h dots.c dots.v dots.down"],
  ["\\not= \\not\\in \\not\\subset \\not\\equiv", "eq.not in.not subset.not equiv.not"],
  // Big operators, with limits.
  ["\\sum_{i=1}^{n} i", "sum_(i eq 1)^(n) i"],
  ["\\prod_{k} a_k", "product_(k) a_(k)"],
  ["\\int_0^1 f \\, dx", "integral_(0)^(1) f thin d x"],
  ["\\iint \\iiint \\oint", "integral.double integral.triple integral.cont"],
  ["\\sum\\limits_{i} x", "limits(sum)_(i) x"],
  ["\\int\\limits_a^b", "limits(integral)_(a)^(b)"],
  ["\\sum\\nolimits_i", "scripts(sum)_(i)"],
  ["\\lim_{x \\to 0} \\max_i \\min_j \\sup \\inf \\limsup \\liminf", "lim_(x arrow.r 0) max_(i) min_(j) sup inf limsup liminf"],
  ["\\bigcup_i A_i \\bigcap_j B_j", "union.big_(i) A_(i) inter.big_(j) B_(j)"],
  // Functions.
  ["\\sin x \\cos x \\tan x \\log x \\ln x \\exp x", "sin x cos x tan x log x ln x exp x"],
  [
    "\\det A \\dim V \\ker f \\arg z \\deg p \\gcd(a, b) \\Pr(A)",
    "det A dim V ker f arg z deg p gcd paren.l a comma b paren.r Pr paren.l A paren.r"
  ],
  ["\\arcsin \\sinh \\cosh \\tanh \\cot \\sec \\csc", "arcsin sinh cosh tanh cot sec csc"],
  ["\\operatorname{lcm}(a, b)", 'op("lcm") paren.l a comma b paren.r'],
  ["\\operatorname*{argmax}_x", 'limits(op("argmax"))_(x)'],
  // \left … \right.
  ["\\left( \\frac{a}{b} \\right)^2", "lr(paren.l frac(a, b) paren.r)^(2)"],
  ["\\left[ x \\right]", "lr(bracket.l x bracket.r)"],
  ["\\left\\{ x \\middle| x > 0 \\right\\}", "lr(brace.l x mid(bar.v) x gt 0 brace.r)"],
  ["\\left| x \\right| \\left\\| v \\right\\|", "lr(bar.v x bar.v) lr(bar.v.double v bar.v.double)"],
  ["\\left\\langle u, v \\right\\rangle", "lr(chevron.l u comma v chevron.r)"],
  ["\\left\\lfloor x \\right\\rfloor \\left\\lceil x \\right\\rceil", "lr(floor.l x floor.r) lr(ceil.l x ceil.r)"],
  ["\\left. \\frac{df}{dx} \\right|_{x=0}", "lr(frac(d f, d x) bar.v)_(x eq 0)"],
  ["\\left( \\left[ x \\right] \\right)", "lr(paren.l lr(bracket.l x bracket.r) paren.r)"],
  ["\\left( \\text{if} \\right) \\left. \\right.", 'lr(paren.l"if"paren.r) lr("")'],
  ["\\big( x \\Big] \\langle \\rangle \\lfloor", "paren.l x bracket.r chevron.l chevron.r floor.l"],
  ["F(x) \\Big|_0^1", 'F paren.l x paren.r class("normal", bar.v)_(0)^(1)'],
  // Matrices and cases.
  ["\\begin{matrix} a & b \\\\ c & d \\end{matrix}", "mat(delim: #none, a, b; c, d)"],
  ["\\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}", 'mat(delim: "(", 1, 0; 0, 1)'],
  ["\\begin{bmatrix} a \\\\ b \\\\ \\end{bmatrix}", 'mat(delim: "[", a; b)'],
  ["\\begin{Bmatrix} a \\end{Bmatrix}", 'mat(delim: "{", a)'],
  ["\\begin{vmatrix} a & b \\\\ c & d \\end{vmatrix}", 'mat(delim: "|", a, b; c, d)'],
  ["\\begin{Vmatrix} a \\end{Vmatrix}", "mat(delim: bar.v.double, a)"],
  ["\\begin{smallmatrix} a & b \\end{smallmatrix}", "inline(mat(delim: #none, a, b))"],
  ["\\begin{pmatrix} a_{11} & \\cdots \\\\ \\vdots & \\ddots \\end{pmatrix}", 'mat(delim: "(", a_(11), dots.c; dots.v, dots.down)'],
  [
    "|x| = \\begin{cases} x & \\text{if } x \\ge 0 \\\\ -x & \\text{otherwise} \\end{cases}",
    'class("normal", bar.v) x class("normal", bar.v) eq cases(x & quad"if "x gt.eq 0, minus x & quad"otherwise")'
  ],
  // Aligned rows (display formulas).
  ["\\begin{aligned} a &= b + c \\\\ &= d \\end{aligned}", "a & eq b plus c \\ & eq d"],
  ["\\begin{align*} x &= 1 \\\\ y &= 2 \\end{align*}", "x & eq 1 \\ y & eq 2"],
  ["\\begin{align} x &= 1 \\end{align}", "x & eq 1"],
  ["\\begin{gather} a \\\\ b \\end{gather}", "a \\ b"],
  ["\\begin{split} a &= b \\\\ &= c \\end{split}", "a & eq b \\ & eq c"],
  ["a \\\\ b", "a \\ b"],
  // Accents.
  ["\\hat{x} \\bar{x} \\overline{AB} \\underline{x} \\vec{v}", "hat(x) macron(x) overline(A B) underline(x) arrow(v)"],
  [
    "\\dot{x} \\ddot{x} \\tilde{x} \\widehat{xy} \\widetilde{xy} \\hat\\theta",
    "dot(x) dot.double(x) tilde(x) hat(x y) tilde(x y) hat(theta)"
  ],
  // Alphabets and text.
  ["\\mathbb{R} \\mathcal{L} \\mathfrak{g} \\mathbf{v} \\boldsymbol{\\mu}", "bb(R) cal(L) frak(g) upright(bold(v)) bold(mu)"],
  ["\\mathrm{d}x \\mathit{x} \\mathsf{A} \\mathtt{x}", "upright(d) x italic(x) upright(sans(A)) mono(x)"],
  ["\\text{for all } x", '"for all "x'],
  ["\\textrm{a} \\textbf{b} \\textit{c} \\mbox{d}", '"a"bold("b") italic("c")"d"'],
  ["\\text{H}_2\\text{O}", '"H"_(2)"O"'],
  ["\\text{CO}_2 + \\text{H}_2\\text{O} \\rightarrow \\text{H}_2\\text{CO}_3", '"CO"_(2) plus"H"_(2)"O"arrow.r"H"_(2)"CO"_(3)'],
  ["\\text{50\\% \\& \\$5 \\#1 a\\_b}", '"50% & $5 #1 a_b"'],
  ["\\%", '"%"'],
  // Spacing.
  ["a\\,b\\:c\\;d\\!e\\quad f\\qquad g\\ h", "a thin b med c thick d e quad f wide g space h"],
  // Modular arithmetic.
  ["a \\equiv b \\pmod{n}", "a equiv b quad paren.l mod n paren.r"],
  ["a \\bmod b", "a mod b"],
  ["a \\mod b", "a quad mod b"],
  // Braces over and under, with their labels.
  ["\\underbrace{a + b}_{n}", "underbrace(a plus b, n)"],
  ["\\overbrace{x + y}^{\\text{sum}}", 'overbrace(x plus y, "sum")'],
  ["\\underbrace{x}", "underbrace(x)"],
  ["\\overset{!}{=} \\underset{x}{\\arg\\max} \\stackrel{def}{=}", "limits(eq)^(excl) limits(arg max)_(x) limits(eq)^(d e f)"],
  ["A \\xrightarrow{f} B \\xleftarrow{g} C", "A limits(arrow.r.long)^(f) B limits(arrow.l.long)^(g) C"],
  // Styles.
  ["\\displaystyle \\sum_i x_i", "display(sum_(i) x_(i))"],
  ["a {\\textstyle \\frac{1}{2}} b", "a inline(frac(1, 2)) b"],
  ["", ""]
]

t.test("each construct becomes exactly this Typst markup", async (t) => {
  for (const [latex, typst] of CONVERSIONS) {
    const result = latexToTypst(latex, "display")
    t.same(result, { ok: true, value: { typst, tag: null, notag: false, label: null, references: [] } }, latex)
  }
})

t.test("inline formulas convert the same way", async (t) => {
  t.same(latexToTypst("\\frac{a}{b} + x_1", "inline"), {
    ok: true,
    value: { typst: "frac(a, b) plus x_(1)", tag: null, notag: false, label: null, references: [] }
  })
})

t.test("a display formula's \\tag, \\notag and \\label come back as data, never in the markup", async (t) => {
  t.same(latexToTypst("E = mc^2 \\tag{3.1} \\label{eq:energy}", "display"), {
    ok: true,
    value: { typst: "E eq m c^(2)", tag: "3.1", notag: false, label: "eq:energy", references: [] }
  })
  t.same(latexToTypst("a = b \\notag", "display"), {
    ok: true,
    value: { typst: "a eq b", tag: null, notag: true, label: null, references: [] }
  })
  t.same(latexToTypst("a = b \\nonumber", "display"), {
    ok: true,
    value: { typst: "a eq b", tag: null, notag: true, label: null, references: [] }
  })
  t.same(latexToTypst("x \\tag{$*$}", "display"), { ok: false, reason: "only plain text inside \\tag" })
})

t.test("\\ref and \\eqref become numbered placeholders, with their keys in order", async (t) => {
  const result = latexToTypst("\\text{by } \\eqref{eq:a} \\text{ and } \\ref{b_2}", "inline")
  t.same(result, {
    ok: true,
    value: {
      typst: `"by "${REF_PLACEHOLDER(0)}" and "${REF_PLACEHOLDER(1)}`,
      tag: null,
      notag: false,
      label: null,
      references: [
        { key: "eq:a", eqref: true },
        { key: "b_2", eqref: false }
      ]
    }
  })
  t.not(REF_PLACEHOLDER(0), REF_PLACEHOLDER(1), "each placeholder is distinct")
  t.notOk(REF_PLACEHOLDER(10).includes(REF_PLACEHOLDER(1)), "no placeholder contains another")
})

const REFUSALS: ReadonlyArray<readonly [string, string, "inline" | "display"]> = [
  ["\\def\\x{1}", "unsupported command \\def", "display"],
  ["\\newcommand{\\x}{1}", "unsupported command \\newcommand", "display"],
  ["\\input{/etc/passwd}", "unsupported command \\input", "display"],
  ["\\include{x}", "unsupported command \\include", "display"],
  ["\\href{http://x}{y}", "unsupported command \\href", "display"],
  ["\\url{http://x}", "unsupported command \\url", "display"],
  ["\\catcode`\\#=11", "unsupported command \\catcode", "display"],
  ["\\color{red} x", "unsupported command \\color", "display"],
  ["\\begin{tabular}{c} x \\end{tabular}", "unsupported environment tabular", "display"],
  ["\\begin{array}{cc} a & b \\end{array}", "unsupported environment array", "display"],
  ["{x", "unbalanced braces", "display"],
  ["x}", "unbalanced braces", "display"],
  ["\\frac{a}", "\\frac needs an argument", "display"],
  ["x^", "^ needs an argument", "display"],
  ["x^1^2", "double superscript", "display"],
  ["x_1_2", "double subscript", "display"],
  ["\\left( x", "\\left without \\right", "display"],
  ["x \\right)", "\\right without \\left", "display"],
  ["\\left x \\right)", "\\left, \\right or a size command before something that is not a delimiter", "display"],
  ["\\not\\alpha", "\\not before something other than =, <, >, \\in, \\subset, \\equiv, \\le, \\ge, \\sim, \\approx", "display"],
  ["a & b", "& outside an alignment environment", "display"],
  ["50% off", "a % comment (write \\% for a percent sign)", "display"],
  ["\\text{\\\\}", "only plain text inside \\text", "display"],
  ["\\text{$x$}", "only plain text inside \\text", "display"],
  ["\\operatorname{\\alpha}", "only plain text inside \\operatorname", "display"],
  ["x \\tag{1}", "\\tag in an inline formula", "inline"],
  ["x \\label{a}", "\\label in an inline formula", "inline"],
  ["x \\notag", "\\notag in an inline formula", "inline"],
  ["\\begin{aligned} a &= b \\end{aligned}", "the aligned environment in an inline formula", "inline"],
  ["\\limits", "\\limits without an operator", "display"],
  [`${"{".repeat(65)}x${"}".repeat(65)}`, "nested deeper than 64 levels", "display"],
  [`${"{".repeat(10_000)}x${"}".repeat(10_000)}`, "longer than 10000 characters", "display"],
  [`${"{".repeat(4_000)}x${"}".repeat(4_000)}`, "nested deeper than 64 levels", "display"],
  [`${"\\left(".repeat(70)}x${"\\right)".repeat(70)}`, "nested deeper than 64 levels", "display"],
  ["x".repeat(10_001), "longer than 10000 characters", "display"]
]

t.test("what is not in the tables is refused, with the reason", async (t) => {
  for (const [latex, reason, mode] of REFUSALS) t.same(latexToTypst(latex, mode), { ok: false, reason }, latex.slice(0, 60))
})
