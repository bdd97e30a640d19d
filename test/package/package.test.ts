/**
 * The package as an embedding application gets it: packed, installed into an empty project, and
 * used there with plain Node (no TypeScript loader, no checkout), from TypeScript, as the
 * pressroom command, and from Deno, which must render the same bytes as Node.
 */
import t from "tap"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Locale } from "../../src/render/locales.ts"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { installPackage, runIn } from "../helpers/installed-package.ts"
import { isValidPdf, pageTexts, pdfText } from "../helpers/pdf.ts"
import { sha256 } from "../helpers/render.ts"
import { lostWords } from "../helpers/words.ts"

const started = Date.now()
const installed = await installPackage()
t.teardown(() => rmSync(installed.dir, { recursive: true, force: true }))
const { project } = installed
t.comment(
  `packed and installed in ${((Date.now() - started) / 1000).toFixed(1)} s; tarball ${installed.size} bytes, ${installed.files.length} files`
)

/** Three scripts: Latin with diacritics, Arabic (right to left), Devanagari (shaped clusters). */
const DOCUMENTS = {
  latin: { markdown: "# Žluťoučký kůň\n\nCrème brûlée à la façade naïve, Ærøskøbing.", templateId: "academic", locale: "fr" },
  arabic: { markdown: "# مرحبا بالعالم\n\nهذا مستند عربي من المكتبة.", templateId: "clean", locale: "ar" },
  devanagari: { markdown: "# नमस्ते दुनिया\n\nयह पुस्तकालय से हिन्दी दस्तावेज़ है।", templateId: "clean", locale: "hi" }
} as const satisfies Record<string, { markdown: string; templateId: string; locale: Locale }>

/** An application rendering DOCUMENTS with `render` imported from `specifier`, printing each PDF's SHA-256. */
const renderingApp = (specifier: string) => `import { writeFileSync } from "node:fs"
import { render } from ${JSON.stringify(specifier)}
const documents = ${JSON.stringify(DOCUMENTS)}
const hashes = {}
for (const [name, request] of Object.entries(documents)) {
  const { pdf, sha256 } = await render(request)
  writeFileSync(\`\${name}.pdf\`, pdf)
  hashes[name] = sha256
}
console.log(JSON.stringify(hashes))
`

const lastLine = (stdout: string) => stdout.trim().split("\n").pop() ?? ""

t.test("the tarball holds what the package needs at run time, and no sources", async (t) => {
  const paths = installed.files
  for (const needed of [
    "bin/pressroom.js",
    "dist/index.js",
    "dist/pressroom.js",
    "dist/render-worker.js",
    "dist/types/index.d.ts",
    "fonts/manifest.json",
    "typst-templates/catalog.json",
    "migrations/0001_platform.sql",
    "README.md",
    "package.json"
  ])
    t.ok(paths.includes(needed), `${needed} is packed`)
  t.same(
    paths.filter((path) => /^(src|test|bench|scripts|docs|examples)\//.test(path)),
    [],
    "no sources, tests or documentation folders"
  )
})

t.test("plain Node renders three scripts with the installed package", async (t) => {
  writeFileSync(join(project, "app.mjs"), renderingApp("pressroom"))
  const run = await runIn(project, process.execPath, ["app.mjs"])
  t.equal(run.code, 0, run.stderr)
  const hashes = JSON.parse(lastLine(run.stdout)) as Record<string, string>
  for (const [name, request] of Object.entries(DOCUMENTS)) {
    const pdf = readFileSync(join(project, `${name}.pdf`))
    t.ok(isValidPdf(pdf), `${name}.pdf is a PDF`)
    t.equal(sha256(pdf), hashes[name], `${name}.pdf is the PDF render returned`)
    t.same(lostWords(request.markdown, pageTexts(pdf).join("\n"), request.locale), [], `every word of ${name} reads back`)
  }

  t.test("Deno renders the same bytes, importing the installed package by path", async (t) => {
    writeFileSync(join(project, "deno-app.mjs"), renderingApp("./node_modules/pressroom/dist/index.js"))
    const deno = join(packageRoot, "node_modules", "deno", "deno")
    const underDeno = await runIn(project, deno, ["run", "--allow-read", "--allow-write", "--allow-env", "--allow-sys", "deno-app.mjs"])
    t.equal(underDeno.code, 0, underDeno.stderr)
    t.same(JSON.parse(lastLine(underDeno.stdout)), hashes, "the SHA-256 of every PDF equals Node's")
  })
})

t.test("an Effect program provides the renderer's service with its own copy of effect", async (t) => {
  writeFileSync(
    join(project, "effect-app.mjs"),
    `import { Effect } from "effect"
import { InvalidRenderRequest, RenderService } from "pressroom"
const program = Effect.gen(function* () {
  const renderer = yield* RenderService
  const { pdf } = yield* renderer.render({ markdown: "# From Effect", templateId: "clean" })
  const refused = yield* Effect.flip(renderer.render({ markdown: "x", templateId: "no-such-template" }))
  return { pdfBytes: pdf.length, refused: refused instanceof InvalidRenderRequest }
})
console.log(JSON.stringify(await Effect.runPromise(Effect.scoped(Effect.provide(program, RenderService.Default)))))
`
  )
  const run = await runIn(project, process.execPath, ["effect-app.mjs"])
  t.equal(run.code, 0, run.stderr)
  const result = JSON.parse(lastLine(run.stdout)) as { pdfBytes: number; refused: boolean }
  t.ok(result.pdfBytes > 1000, "the service renders")
  t.equal(result.refused, true, "an unknown template fails with InvalidRenderRequest")
})

t.test("a TypeScript project type-checks against the declarations, and a wrong type is caught", async (t) => {
  const tsc = join(packageRoot, "node_modules", ".bin", "tsc")
  writeFileSync(
    join(project, "good.ts"),
    `import { LOCALES, type RenderRequest, type RenderResult, render } from "pressroom"
const request: RenderRequest = { markdown: "# Typed", templateId: "clean", locale: LOCALES[0], options: { pageNumbers: true } }
const result: RenderResult = await render(request)
const pages: number = result.pageCount
console.log(pages, result.provenance.templateId)
`
  )
  writeFileSync(join(project, "bad.ts"), `import { render } from "pressroom"\nawait render({ markdown: "# Typed", templateId: 42 })\n`)
  // Both files in one check per module resolution: the only error is bad.ts's, so good.ts and the
  // package's declarations (no skipLibCheck, no Node type definitions installed) check cleanly.
  const options = { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true }
  const configs = {
    "tsconfig.json": options,
    "tsconfig.bundler.json": { ...options, module: "ESNext", moduleResolution: "Bundler" }
  }
  for (const [name, compilerOptions] of Object.entries(configs)) {
    writeFileSync(join(project, name), JSON.stringify({ compilerOptions, files: ["good.ts", "bad.ts"] }))
    const run = await runIn(project, tsc, ["-p", name])
    t.not(run.code, 0, `${name}: the check fails`)
    t.same(
      run.stdout.trim().split("\n"),
      ["bad.ts(2,37): error TS2322: Type 'number' is not assignable to type 'string'."],
      `${name}: on the wrong templateId only`
    )
  }
})

t.test("npx pressroom render writes a PDF", async (t) => {
  writeFileSync(join(project, "letter.md"), "# Grüße aus dem Paket\n\nÜber die Kommandozeile.\n")
  const run = await runIn(project, "npx", ["pressroom", "render", "letter.md", "--template", "clean", "--locale", "de", "-o", "letter.pdf"])
  t.equal(run.code, 0, run.stderr)
  const pdf = readFileSync(join(project, "letter.pdf"))
  t.ok(isValidPdf(pdf))
  t.match(pdfText(pdf), /Grüße aus dem Paket Über die Kommandozeile/)
})
