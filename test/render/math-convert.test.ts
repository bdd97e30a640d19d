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
  ["\\left( \\text{if} \\right) \\left. \\right.", 'lr(paren.l#pr.math-text("if")paren.r)lr("")'],
  ["\\big( x \\Big] \\langle \\rangle \\lfloor", "lr(paren.l, size: #120%)x lr(bracket.r, size: #180%)chevron.l chevron.r floor.l"],
  ["F(x) \\Big|_0^1", 'F paren.l x paren.r class("normal", lr(bar.v, size: #180%))_(0)^(1)'],
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
    'class("normal", bar.v) x class("normal", bar.v) eq cases(x & quad#pr.math-text("if ")x gt.eq 0, minus x & quad#pr.math-text("otherwise"))'
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
  ["\\text{for all } x", '#pr.math-text("for all ")x'],
  [
    "\\textrm{a} \\textbf{b} \\textit{c} \\mbox{d}",
    '#pr.math-text("a")#pr.math-text("b", weight: "bold")#pr.math-text("c", style: "italic")#pr.math-text("d")'
  ],
  ["\\text{H}_2\\text{O}", '#pr.math-text("H")_(2)#pr.math-text("O")'],
  [
    "\\text{CO}_2 + \\text{H}_2\\text{O} \\rightarrow \\text{H}_2\\text{CO}_3",
    '#pr.math-text("CO")_(2)plus#pr.math-text("H")_(2)#pr.math-text("O")arrow.r#pr.math-text("H")_(2)#pr.math-text("CO")_(3)'
  ],
  ["\\textsf{a} \\texttt{b}", 'sans(#pr.math-text("a"))mono(#pr.math-text("b"))'],
  ["\\text{50\\% \\& \\$5 \\#1 a\\_b}", '#pr.math-text("50% & $5 #1 a_b")'],
  ["\\%", '"%"'],
  // Spacing.
  ["a\\,b\\:c\\;d\\!e\\quad f\\qquad g\\ h", "a thin b med c thick d e quad f wide g space h"],
  // Modular arithmetic.
  ["a \\equiv b \\pmod{n}", "a equiv b quad paren.l mod n paren.r"],
  ["a \\bmod b", "a mod b"],
  ["a \\mod b", "a quad mod b"],
  // Braces over and under, with their labels.
  ["\\underbrace{a + b}_{n}", "underbrace(a plus b, n)"],
  ["\\overbrace{x + y}^{\\text{sum}}", 'overbrace(x plus y, #pr.math-text("sum"))'],
  ["\\underbrace{x}", "underbrace(x)"],
  ["\\overset{!}{=} \\underset{x}{\\arg\\max} \\stackrel{def}{=}", "limits(eq)^(excl) limits(arg max)_(x) limits(eq)^(d e f)"],
  ["A \\xrightarrow{f} B \\xleftarrow{g} C", "A limits(arrow.r.long)^(f) B limits(arrow.l.long)^(g) C"],
  // Arrays: rules from the column specification and \\hline, one alignment for all columns.
  [
    "\\begin{array}{cc|c} 1 & 2 & 3 \\\\ \\hline 4 & 5 & 6 \\end{array}",
    "mat(delim: #none, align: #center, augment: #(vline: (2,), hline: (1,)), 1, 2, 3; 4, 5, 6)"
  ],
  [
    "\\begin{array}{|r|r|} \\hline a & b \\\\ \\hline \\end{array}",
    "mat(delim: #none, align: #right, augment: #(vline: (0, 1, 2), hline: (0, 1)), a, b)"
  ],
  ["\\begin{array}{lc} a & b \\end{array}", "mat(delim: #none, align: #center, a, b)"],
  ["\\begin{pmatrix*}[r] -1 & 2 \\end{pmatrix*}", 'mat(delim: "(", align: #right, minus 1, 2)'],
  ["\\begin{matrix*} a \\end{matrix*}", "mat(delim: #none, align: #center, a)"],
  ["\\begin{rcases} a & b \\end{rcases}", "cases(reverse: #true, a & quad b)"],
  ["\\begin{dcases} a & b \\end{dcases}", "cases(display(a) & quad display(b))"],
  ["\\begin{alignedat}{2} a &= b & c &= d \\end{alignedat}", "a & eq b & c & eq d"],
  // Colours: only a hex the converter writes, from a name or a checked hex.
  ["\\color{red} x + y", '#text(fill: rgb("#ff0000"))[$display(x plus y)$]'],
  ["\\textcolor{#0A0}{x} y", '#text(fill: rgb("#00aa00"))[$display(x)$]y'],
  ["\\colorbox{yellow}{ab}", '#box(fill: rgb("#ffff00"), inset: (x: 0.2em, y: 0.25em))[$display(#pr.math-text("ab"))$]'],
  [
    "\\fcolorbox{red}{yellow}{x}",
    '#box(fill: rgb("#ffff00"), stroke: 0.04em + rgb("#ff0000"), inset: (x: 0.2em, y: 0.25em))[$display(#pr.math-text("x"))$]'
  ],
  // Sizes: delimiters by KaTeX's factors, text sizes absolute as in LaTeX.
  ["\\bigg\\| x \\Bigg\\langle", 'class("normal", lr(bar.v.double, size: #240%))x lr(chevron.l, size: #300%)'],
  ["\\tiny x \\Huge y", "#text(size: 0.5em)[$display(x#text(size: 4.976em)[$display(y)$])$]"],
  // Boxes, rules, phantoms, classes and spaces.
  ["\\imath \\jmath \\boxed{x^2}", "dotless.i dotless.j#box(stroke: 0.04em, inset: 0.25em)[$display(x^(2))$]"],
  ["\\rule[-1pt]{1em}{0.5pt}", "#box(width: 1em, height: 0.5pt, fill: black, baseline: 1pt)"],
  [
    "\\mathop{x}\\mathrel{=}\\mathbin{+}\\mathpunct{,}",
    'class("large", x) class("relation", eq) class("binary", plus) class("punctuation", comma)'
  ],
  ["\\mathopen{[} x \\mathclose{[} \\mathord{+}", 'class("opening", bracket.l) x class("closing", bracket.l) class("normal", plus)'],
  ["a\\kern-1em b \\mkern 18mu c \\hspace{2pt} d \\mspace{3mu}", "a#h(-1em)b#h(1em)c#h(2pt)d#h(0.1667em)"],
  [
    "\\phantom{x}\\hphantom{y}\\vphantom{z}\\smash{q}",
    "#hide[$display(x)$]#box(height: 0pt)[#hide[$display(y)$]]#box(width: 0pt)[#hide[$display(z)$]]#box(height: 0pt)[$display(q)$]"
  ],
  // Brackets over and under, extensible arrows with what goes over and under them.
  ["\\overbracket{x+y}^{a} \\underbracket{x}_{b}", "overbracket(x plus y, a) underbracket(x, b)"],
  [
    "\\xrightarrow[u]{o} \\xLeftarrow{} \\xmapsto{f}",
    'limits(arrow.r.long)_(u)^(o) limits(arrow.l.double.long)^("") limits(arrow.r.long.bar)^(f)'
  ],
  // Operator names with math in them; text with math in it.
  ["\\operatorname{arg\\,max}_x \\operatorname{f_1}", 'op("arg max")_(x) op(upright(f_(1)))'],
  ["\\text{if $x>0$ and } y", '#pr.math-text("if ")x gt 0#pr.math-text(" and ")y'],
  // Styles.
  ["\\displaystyle \\sum_i x_i", "display(sum_(i) x_(i))"],
  ["a {\\textstyle \\frac{1}{2}} b", "a inline(frac(1, 2)) b"],
  ["", ""]
]

t.test("each construct becomes exactly this Typst markup", async (t) => {
  for (const [latex, typst] of CONVERSIONS) {
    const result = latexToTypst(latex, "display")
    t.same(result, { ok: true, value: { typst, tag: null, tagMath: null, notag: false, label: null, references: [] } }, latex)
  }
})

t.test("inline formulas convert the same way", async (t) => {
  t.same(latexToTypst("\\frac{a}{b} + x_1", "inline"), {
    ok: true,
    value: { typst: "frac(a, b) plus x_(1)", tag: null, tagMath: null, notag: false, label: null, references: [] }
  })
})

t.test("a display formula's \\tag, \\notag and \\label come back as data, never in the markup", async (t) => {
  t.same(latexToTypst("E = mc^2 \\tag{3.1} \\label{eq:energy}", "display"), {
    ok: true,
    value: { typst: "E eq m c^(2)", tag: "3.1", tagMath: null, notag: false, label: "eq:energy", references: [] }
  })
  t.same(latexToTypst("a = b \\notag", "display"), {
    ok: true,
    value: { typst: "a eq b", tag: null, tagMath: null, notag: true, label: null, references: [] }
  })
  t.same(latexToTypst("a = b \\nonumber", "display"), {
    ok: true,
    value: { typst: "a eq b", tag: null, tagMath: null, notag: true, label: null, references: [] }
  })
  t.same(latexToTypst("x \\tag{$*$}", "display"), {
    ok: true,
    value: { typst: "x", tag: null, tagMath: "ast.op", notag: false, label: null, references: [] }
  })
})

t.test("\\ref and \\eqref become numbered placeholders, with their keys in order", async (t) => {
  const result = latexToTypst("\\text{by } \\eqref{eq:a} \\text{ and } \\ref{b_2}", "inline")
  t.same(result, {
    ok: true,
    value: {
      typst: `#pr.math-text("by ")${REF_PLACEHOLDER(0)}#pr.math-text(" and ")${REF_PLACEHOLDER(1)}`,
      tag: null,
      tagMath: null,
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
  ["\\color{javascript} x", "an unknown colour (javascript): use a name such as red or a hex colour such as #cc0000", "display"],
  ["\\textcolor{#ff00zz}{x}", "an unknown colour (#ff00zz): use a name such as red or a hex colour such as #cc0000", "display"],
  ["\\kern 3furlongs", "a length that is not a number and a unit (3fu)", "display"],
  ["\\hspace{1e9em}", "a length that is not a number and a unit (1e9em)", "display"],
  ["\\hspace{1000em}", "a length over 100 (1000em)", "display"],
  ["\\begin{array}{p{3cm}} a \\end{array}", "an array column specification other than l, c, r and | (p3cm)", "display"],
  ["\\begin{pmatrix*}[x] a \\end{pmatrix*}", "a matrix alignment other than l, c or r (x)", "display"],
  ["\\begin{tabular}{c} x \\end{tabular}", "unsupported environment tabular", "display"],
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
  ["\\text{\\alpha}", "only plain text inside \\text", "display"],
  ["\\operatorname{\\input{x}}", "unsupported command \\input", "display"],
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
