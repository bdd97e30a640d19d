/**
 * `pressroom render` as a user runs it: a real process, files in and out, exit codes and one-line
 * errors.
 */
import t from "tap"
import { childEnv } from "../helpers/child-env.ts"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseOptionFlags } from "../../src/cli/render.ts"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { isValidPdf, metadata, pdfText } from "../helpers/pdf.ts"
import { sha256 } from "../helpers/render.ts"

const bin = join(packageRoot, "bin", "pressroom.js")
const dir = mkdtempSync(join(tmpdir(), "pressroom-cli-"))
const source = join(dir, "doc.md")
writeFileSync(source, "---\ntitle: CLI Document\n---\n# Hello from the command line\n\n![remote](https://example.com/x.png)\n")

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const pressroom = (args: ReadonlyArray<string>, input?: string): Promise<Run> =>
  new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { cwd: dir, env: childEnv({ PRESSROOM_RENDER_WORKERS: "1" }) },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
      }
    )
    if (input !== undefined) child.stdin!.end(input)
  })

t.test("renders a file to a PDF and its provenance", async (t) => {
  const out = join(dir, "doc.pdf")
  const provenance = join(dir, "doc.json")
  const run = await pressroom([
    "render",
    source,
    "--template",
    "executive",
    "--locale",
    "de",
    "--option",
    "pageNumbers=true",
    "-o",
    out,
    "--provenance",
    provenance
  ])
  t.equal(run.code, 0, run.stderr)
  const pdf = readFileSync(out)
  t.ok(isValidPdf(pdf))
  t.match(pdfText(pdf), /Hello from the command line/)
  t.match(pdfText(pdf), /Seite 1 von 1/, "the option and the locale took effect")
  t.equal(metadata(pdf, "info:Title"), "CLI Document")
  const record = JSON.parse(readFileSync(provenance, "utf8"))
  t.equal(record.sha256, sha256(pdf), "the provenance file names the PDF's hash")
  t.equal(record.provenance.channel, "cli")
  t.equal(record.provenance.templateId, "executive")
  t.equal(record.provenance.locale, "de")
  t.match(run.stderr, /^warning: image_not_embedded \(line 6\): /m, "warnings go to stderr")
})

t.test("reads standard input with -", async (t) => {
  const out = join(dir, "stdin.pdf")
  const run = await pressroom(["render", "-", "--template", "clean", "-o", out], "# From stdin\n")
  t.equal(run.code, 0, run.stderr)
  t.match(pdfText(readFileSync(out)), /From stdin/)
})

const refusals: ReadonlyArray<readonly [string, ReadonlyArray<string>, RegExp]> = [
  ["an unknown template", ["--template", "nope"], /unknown template 'nope'/],
  ["an unknown locale", ["--template", "clean", "--locale", "xx"], /unknown locale 'xx'/],
  ["an invalid colour", ["--template", "clean", "--option", "bodyTextColor=red"], /options\.bodyTextColor/],
  ["an unknown option", ["--template", "clean", "--option", "fontSize=12"], /fontSize/],
  ["an option without a value", ["--template", "clean", "--option", "pageNumbers"], /key=value/],
  ["a missing template flag", [], /--template is required/]
]
for (const [what, flags, message] of refusals) {
  t.test(`refuses ${what} with one line and exit code 2`, async (t) => {
    const out = join(dir, "refused.pdf")
    const run = await pressroom(["render", source, ...flags, "-o", out])
    t.equal(run.code, 2)
    t.match(run.stderr, message)
    t.equal(run.stderr.trim().split("\n").length, 1, "one line")
    t.notOk(existsSync(out), "no output file")
  })
}

t.test("an unreadable input file is refused", async (t) => {
  const run = await pressroom(["render", join(dir, "missing.md"), "--template", "clean", "-o", join(dir, "x.pdf")])
  t.equal(run.code, 2)
  t.match(run.stderr, /cannot read/)
})

t.test("an unknown command is refused, also one named like a property of every object", async (t) => {
  for (const name of ["frobnicate", "constructor", "__proto__"]) {
    const run = await pressroom([name])
    t.equal(run.code, 2, name)
    t.match(run.stderr, new RegExp(`unknown command '${name}'`))
  }
})

t.test("--help lists every command", async (t) => {
  const run = await pressroom(["--help"])
  t.equal(run.code, 0)
  for (const command of [
    "render",
    "serve",
    "migrate",
    "accounts create",
    "accounts show",
    "keys create",
    "keys revoke",
    "credits add",
    "audit"
  ]) {
    t.match(run.stdout, new RegExp(`(^  | \\| )${command}( |$)`, "m"), command)
  }
})

t.test("--option values are read as each option's schema says", async (t) => {
  t.same(parseOptionFlags(["pageNumbers=true", "creativeAccent=rose", "bodyTextColor=#112233", "headingTextColor=false"]), {
    pageNumbers: true,
    creativeAccent: "rose",
    bodyTextColor: "#112233",
    // A colour is text, even one that reads like a boolean: the renderer refuses it as a colour.
    headingTextColor: "false"
  })
  t.same(parseOptionFlags(["fontSize=12"]), { fontSize: "12" }, "an unknown option keeps its text, for the renderer to refuse by name")
})
