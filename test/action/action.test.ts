/**
 * The GitHub Action driven as a runner drives its step (action.yml's last step): `pressroom
 * action` as a process, with the environment the runner gives it (the INPUT_* variables the
 * composite step sets, GITHUB_WORKSPACE, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY), on a sample
 * repository this test makes: Markdown in three folders, one file with a `pressroom:` block, one
 * with a warning, one that cannot be typeset, two whose block is refused, and a link out of the
 * workspace. Needs `npm run build`.
 */
import t from "tap"
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { childEnv } from "../helpers/child-env.ts"
import { pdfjsPageTexts, pdfText } from "../helpers/pdf.ts"
import { largeReport, sha256 } from "../helpers/render.ts"

const bin = join(packageRoot, "bin", "pressroom.js")
const root = mkdtempSync(join(tmpdir(), "pressroom-action-"))
const workspace = join(root, "repository")

const files: Readonly<Record<string, string>> = {
  "handbook/welcome.md": "# Welcome aboard\n\nThe handbook explains how releases ship.\n",
  "docs/cv.md":
    "---\ntitle: Curriculum Vitae\npressroom:\n  template: resume\n  options:\n    pageNumbers: true\n---\n# Ada Lovelace\n\nAnalyst of engines.\n",
  "docs/notes.md": "# Course notes\n\nA paragraph.\n\n<center>raw markup</center>\n\nThe end of the notes.\n",
  "docs/not-a-mapping.md": "---\ntitle: Broken\npressroom: resume\n---\n# Never rendered\n",
  "docs/unknown-option.md":
    "---\npressroom:\n  template: clean\n  options:\n    pageNumbers: true\n    shading: heavy\n---\n# Never rendered either\n",
  // A document the renderer's worker cannot hold in a 16 MiB heap (see the run below).
  "reports/annual.md": largeReport()
}
for (const [path, text] of Object.entries(files)) {
  mkdirSync(dirname(join(workspace, path)), { recursive: true })
  writeFileSync(join(workspace, path), text)
}
// A file outside the workspace, and a link to it inside.
writeFileSync(join(root, "secret.md"), "# Not the repository's\n")
mkdirSync(join(workspace, "links"))
symlinkSync(join(root, "secret.md"), join(workspace, "links", "secret.md"))

interface ActionRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  readonly output: string
  readonly summary: string
}

let runs = 0
/** One step: `inputs` as INPUT_<NAME>, as action.yml's render step sets them. */
const runAction = (inputs: Readonly<Record<string, string>>, extra: Readonly<Record<string, string>> = {}): Promise<ActionRun> => {
  const output = join(root, `output-${++runs}`)
  const summary = join(root, `summary-${runs}`)
  writeFileSync(output, "")
  writeFileSync(summary, "")
  const env = childEnv({
    GITHUB_ACTIONS: "true",
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: summary,
    ...Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value])),
    ...extra
  })
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, "action"], { cwd: workspace, env }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0
      resolve({ code, stdout, stderr, output: readFileSync(output, "utf8"), summary: readFileSync(summary, "utf8") })
    })
  })
}

/** A value set through GITHUB_OUTPUT (`name<<delimiter`, the value, the delimiter). */
const outputValue = (output: string, name: string): string | undefined => {
  const match = new RegExp(`^${name}<<(.+)\\n([\\s\\S]*?)\\n\\1$`, "m").exec(output)
  return match?.[2]
}

const read = (path: string) => readFileSync(join(workspace, path))
const record = (path: string) => JSON.parse(readFileSync(join(workspace, path), "utf8"))

const first = await runAction(
  { files: "handbook/*.md\ndocs/**/*.md\nreports/*.md\nlinks/*.md\n!docs/drafts/**" },
  // Small enough that the annual report cannot be typeset, large enough for every other file.
  { PRESSROOM_RENDER_WORKER_HEAP_MB: "16" }
)

t.test("every file that can be is written, and then the step fails for the others", async (t) => {
  t.equal(first.code, 1, first.stderr)
  for (const written of ["pdf/handbook/welcome", "pdf/docs/cv", "pdf/docs/notes"]) {
    t.ok(existsSync(join(workspace, `${written}.pdf`)), `${written}.pdf`)
    t.ok(existsSync(join(workspace, `${written}.provenance.json`)), `${written}.provenance.json`)
  }
  for (const refused of ["pdf/docs/not-a-mapping", "pdf/docs/unknown-option", "pdf/reports/annual", "pdf/links/secret"]) {
    t.notOk(existsSync(join(workspace, `${refused}.pdf`)), `no ${refused}.pdf`)
    t.notOk(existsSync(join(workspace, `${refused}.provenance.json`)), `no ${refused}.provenance.json`)
  }
  t.match(first.stdout, /^::error::4 of 7 files failed; the others were written$/m)
})

t.test("the PDFs read back with their words; the pressroom block chose the template and options", async (t) => {
  t.match(pdfText(read("pdf/handbook/welcome.pdf")), /Welcome aboard The handbook explains how releases ship\./)
  t.match((await pdfjsPageTexts(new Uint8Array(read("pdf/handbook/welcome.pdf")))).join(" "), /The handbook explains how releases ship\./)
  const cv = pdfText(read("pdf/docs/cv.pdf"))
  t.match(cv, /Ada Lovelace/)
  t.match(cv, /Analyst of engines\./)
  t.match(cv, /Page 1 of 1/, "pressroom.options.pageNumbers numbered the page")
  t.notMatch(pdfText(read("pdf/handbook/welcome.pdf")), /Page 1 of 1/, "a file without the block: the input's options (none)")
  t.match(pdfText(read("pdf/docs/notes.pdf")), /The end of the notes\./)
  t.equal(record("pdf/docs/cv.provenance.json").provenance.templateId, "resume", "the file's template over the input's")
  t.equal(record("pdf/handbook/welcome.provenance.json").provenance.templateId, "clean", "the input's default template")
})

t.test("each provenance record: channel github_action, the PDF's own SHA-256 and page count", async (t) => {
  for (const stem of ["pdf/handbook/welcome", "pdf/docs/cv", "pdf/docs/notes"]) {
    const written = record(`${stem}.provenance.json`)
    t.equal(written.provenance.channel, "github_action", stem)
    t.equal(written.sha256, sha256(read(`${stem}.pdf`)), `${stem}: sha256 is the PDF's bytes' hash`)
    t.equal(written.pageCount, 1)
    t.same(Object.keys(written), ["sha256", "pageCount", "warnings", "provenance"])
  }
  t.same(
    record("pdf/docs/notes.provenance.json").warnings.map((w: { code: string; line: number }) => [w.code, w.line]),
    [["html_dropped", 5]]
  )
})

t.test("the pdfs output lists the written PDFs relative to the workspace", async (t) => {
  const pdfs = outputValue(first.output, "pdfs")
  t.ok(pdfs, first.output)
  t.same(JSON.parse(pdfs ?? "null"), ["pdf/docs/cv.pdf", "pdf/docs/notes.pdf", "pdf/handbook/welcome.pdf"])
})

t.test("annotations: each warning and each failure on its file and line", async (t) => {
  t.match(first.stdout, /^::warning file=docs\/notes\.md,line=5::html_dropped: the HTML element <center> is not rendered$/m)
  t.match(first.stdout, /^::error file=docs\/not-a-mapping\.md,line=3::the pressroom block must be a mapping/m, "on the pressroom: line")
  t.match(first.stdout, /^::error file=docs\/unknown-option\.md,line=6::options\.shading: /m, "on the unknown option's line")
  t.match(first.stdout, /^::error file=reports\/annual\.md::the file cannot be typeset: /m)
  t.match(first.stdout, /^::error file=links\/secret\.md::the file is a link to a path outside the workspace/m)
  t.notMatch(first.stdout, /Not the repository's/, "the linked file was not read")
  const annotations = first.stdout.split("\n").filter((line) => /^::(warning|error) /.test(line))
  t.equal(annotations.length, 5, annotations.join("\n"))
})

t.test("the job summary's table: file, template, pages, SHA-256, warnings", async (t) => {
  const rows = [...first.summary.matchAll(/<tr>(.*?)<\/tr>/g)].map(([, row]) =>
    [...(row ?? "").matchAll(/<t[hd]>(.*?)<\/t[hd]>/g)].map(([, cell]) => (cell ?? "").replace(/<\/?code>/g, ""))
  )
  t.same(rows, [
    ["file", "template", "pages", "SHA-256", "warnings"],
    ["docs/cv.md", "resume", "1", sha256(read("pdf/docs/cv.pdf")), "0"],
    ["docs/notes.md", "clean", "1", sha256(read("pdf/docs/notes.pdf")), "1"],
    ["handbook/welcome.md", "clean", "1", sha256(read("pdf/handbook/welcome.pdf")), "0"]
  ])
  t.match(first.summary, /reports\/annual\.md: the file cannot be typeset/, "the files not written are listed")
})

t.test("fail-on-warning fails the step after writing every file; a second run gives the same bytes", async (t) => {
  const again = await runAction({ files: "docs/cv.md\ndocs/notes.md", "output-dir": "again", "fail-on-warning": "True" })
  t.equal(again.code, 1, again.stderr)
  t.match(again.stdout, /^::error::1 of 2 files warned, and fail-on-warning is true; all were written$/m)
  t.same(JSON.parse(outputValue(again.output, "pdfs") ?? "null"), ["again/docs/cv.pdf", "again/docs/notes.pdf"])
  for (const stem of ["docs/cv", "docs/notes"]) {
    t.ok(read(`again/${stem}.pdf`).equals(read(`pdf/${stem}.pdf`)), `${stem}.pdf: the same bytes`)
    t.same(record(`again/${stem}.provenance.json`), record(`pdf/${stem}.provenance.json`), `${stem}: the same provenance`)
  }
})

t.test("a PDF that cannot be written fails its file, not the others", async (t) => {
  mkdirSync(join(workspace, "blocked"))
  writeFileSync(join(workspace, "blocked", "handbook"), "a file where the folder would go\n")
  const run = await runAction({ files: "handbook/welcome.md\ndocs/cv.md", "output-dir": "blocked" })
  t.equal(run.code, 1, run.stderr)
  t.match(run.stdout, /^::error file=handbook\/welcome\.md::blocked\/handbook\/welcome\.pdf cannot be written \(E[A-Z]+\)$/m)
  t.same(JSON.parse(outputValue(run.output, "pdfs") ?? "null"), ["blocked/docs/cv.pdf"])
  t.ok(read("blocked/docs/cv.pdf").equals(read("pdf/docs/cv.pdf")), "the other file written")
})

t.test("the same file through pressroom render gives the same bytes and the same record but the channel", async (t) => {
  const pdf = join(root, "cv.pdf")
  const provenance = join(root, "cv.json")
  const args = [
    "render",
    join(workspace, "docs/cv.md"),
    "--template",
    "resume",
    "--option",
    "pageNumbers=true",
    "-o",
    pdf,
    "--provenance",
    provenance
  ]
  const code = await new Promise<number>((resolve) =>
    execFile(process.execPath, [bin, ...args], { env: childEnv({ PRESSROOM_RENDER_WORKERS: "1" }) }, (error) => resolve(error ? 1 : 0))
  )
  t.equal(code, 0)
  t.ok(readFileSync(pdf).equals(read("pdf/docs/cv.pdf")), "byte-identical PDFs")
  const cli = JSON.parse(readFileSync(provenance, "utf8"))
  const action = record("pdf/docs/cv.provenance.json")
  t.equal(cli.provenance.channel, "cli")
  t.same({ ...cli, provenance: { ...cli.provenance, channel: "github_action" } }, action)
})

t.test("a pattern or output folder outside the workspace is refused before anything is rendered", async (t) => {
  for (const [inputs, message] of [
    [{ files: "../*.md" }, "::error::files pattern '../*.md' is outside the workspace"],
    [{ files: `${root}/*.md` }, `::error::files pattern '${root}/*.md' is outside the workspace`],
    [{ files: "docs/**/../../../*.md" }, "is outside the workspace"],
    [{ files: "docs/cv.md", "output-dir": "../out" }, "::error::input output-dir '../out' is outside the workspace"],
    [{ files: "docs/cv.md", template: "nope" }, "::error::input unknown template 'nope'"],
    [{ files: "docs/cv.md", options: "[1]" }, "::error::input options must be a JSON object"],
    [{ files: "nothing/*.md" }, "::error::input files matched no file in the workspace"]
  ] as const) {
    const run = await runAction(inputs)
    t.equal(run.code, 1, JSON.stringify(inputs))
    t.ok(run.stdout.includes(message), `${JSON.stringify(inputs)}: ${run.stdout.split("\n").find((l) => l.startsWith("::error"))}`)
    t.equal(outputValue(run.output, "pdfs"), undefined, "no output")
  }
  t.notOk(existsSync(join(root, "out")), "nothing written outside")
  t.notOk(existsSync(join(root, "secret.pdf")))
})
