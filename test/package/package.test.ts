/**
 * The package as an embedding application gets it: packed, installed into an empty project, and
 * used there with plain Node (no TypeScript loader, no checkout), from TypeScript, as the
 * pressroom command, and from Deno, which must render the same bytes as Node; and its client,
 * `pressroom/client`, driving a running server through a document's publication.
 */
import t from "tap"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Locale } from "../../src/render/locales.ts"
import { fontSetSha256, installedFontPath, packageRoot, readManifest } from "../../src/render/fonts/manifest.ts"
import { createAccount } from "../helpers/api.ts"
import { installPackage, runIn } from "../helpers/installed-package.ts"
import { isValidPdf, pageTexts, pdfText } from "../helpers/pdf.ts"
import { sha256 } from "../helpers/render.ts"
import { startServer } from "../helpers/server.ts"
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

/** An application rendering DOCUMENTS with `render` imported from `specifier`, printing each PDF's SHA-256 and the font set's. */
const renderingApp = (specifier: string) => `import { writeFileSync } from "node:fs"
import { render } from ${JSON.stringify(specifier)}
const documents = ${JSON.stringify(DOCUMENTS)}
const hashes = {}
const fontSets = new Set()
for (const [name, request] of Object.entries(documents)) {
  const { pdf, sha256, provenance } = await render(request)
  writeFileSync(\`\${name}.pdf\`, pdf)
  hashes[name] = sha256
  fontSets.add(provenance.fontSetSha256)
}
console.log(JSON.stringify({ pdfs: hashes, fontSetSha256: [...fontSets] }))
`

/** What tsc says of bad.ts: a template id and a locale outside the catalog, for the renderer and for the client. */
const EXPECTED_TYPE_ERRORS = [
  `bad.ts(3,37): error TS2820: Type '"clen"' is not assignable to type 'TemplateId'. Did you mean '"clean"'?`,
  `bad.ts(4,58): error TS2322: Type '"pt"' is not assignable to type '"en" | "es" | "fr" | "de" | "ja" | "zh-CN" | "ko" | "pt-BR" | "ar" | "ru" | "hi" | "it" | undefined'.`,
  `bad.ts(6,123): error TS2820: Type '"clen"' is not assignable to type 'TemplateId'. Did you mean '"clean"'?`
]

const lastLine = (stdout: string) => stdout.trim().split("\n").pop() ?? ""

t.test("the tarball holds what the package needs at run time, and no sources", async (t) => {
  const paths = installed.files
  for (const needed of [
    "bin/pressroom.js",
    "dist/index.js",
    "dist/pressroom.js",
    "dist/render-worker.js",
    "dist/native-worker.js",
    "dist/types/index.d.ts",
    "dist/client.js",
    "dist/types/client/index.d.ts",
    "fonts/manifest.json",
    // The native engine reads the fonts' coverage from it rather than starting a WebAssembly compiler to ask.
    "fonts/coverage.json",
    "typst-templates/catalog.json",
    "migrations/0001_platform.sql",
    "assets/dashboard/app.css",
    "assets/dashboard/app.js",
    "assets/gallery/clean.png",
    "README.md",
    "package.json"
  ])
    t.ok(paths.includes(needed), `${needed} is packed`)
  t.same(
    paths.filter((path) => /^(src|test|bench|scripts|docs|examples)\//.test(path)),
    [],
    "no sources, tests or documentation folders"
  )
  const { fonts } = readManifest()
  const packages = [...new Set(fonts.map((font) => font.package))]
  // A face decoded by the build (published only as WOFF) travels in dist/ instead.
  const decoded = fonts.flatMap((font) => (font.decoded === undefined ? [] : [font.decoded]))
  for (const path of decoded) t.ok(paths.includes(path), `${path} is packed`)
  const expected = [
    ...fonts.filter((font) => font.decoded === undefined).map((font) => `fonts/files/${font.package}/${font.file}`),
    // Each font package's licence files, as that package ships them.
    ...packages.flatMap((name) =>
      ["LICENSE_FONT", "LICENSE"]
        .filter((file) => existsSync(installedFontPath({ package: name, file })))
        .map((file) => `fonts/files/${name}/${file}`)
    )
  ]
  t.same(
    paths.filter((path) => path.startsWith("fonts/files/")).sort(),
    expected.sort(),
    "the manifest's font files and their licences, no more"
  )
})

t.test("the install carries no font package: the package's own copy of the manifest's files is all it has", async (t) => {
  t.notOk(existsSync(join(project, "node_modules", "@expo-google-fonts")), "no @expo-google-fonts package is installed")
  for (const font of readManifest().fonts) {
    const installedPackage = join(project, "node_modules", "pressroom")
    const copy = readFileSync(
      font.decoded === undefined ? join(installedPackage, "fonts", "files", font.package, font.file) : join(installedPackage, font.decoded)
    )
    if (sha256(copy) !== font.sha256) t.fail(`${font.package}/${font.file} differs from the manifest`)
  }
})

t.test("plain Node renders three scripts with the installed package", async (t) => {
  writeFileSync(join(project, "app.mjs"), renderingApp("pressroom"))
  const run = await runIn(project, process.execPath, ["app.mjs"])
  t.equal(run.code, 0, run.stderr)
  const hashes = JSON.parse(lastLine(run.stdout)) as { pdfs: Record<string, string>; fontSetSha256: Array<string> }
  t.same(hashes.fontSetSha256, [fontSetSha256(readManifest())], "the font set is the checkout's, byte for byte")
  for (const [name, request] of Object.entries(DOCUMENTS)) {
    const pdf = readFileSync(join(project, `${name}.pdf`))
    t.ok(isValidPdf(pdf), `${name}.pdf is a PDF`)
    t.equal(sha256(pdf), hashes.pdfs[name], `${name}.pdf is the PDF render returned`)
    t.same(lostWords(request.markdown, pageTexts(pdf).join("\n"), request.locale), [], `every word of ${name} reads back`)
  }

  t.test("the native engine, installed with the package for this platform, renders the same bytes", async (t) => {
    const native = await runIn(project, process.execPath, ["app.mjs"], { PRESSROOM_RENDER_ENGINE: "native" })
    t.equal(native.code, 0, native.stderr)
    t.same(JSON.parse(lastLine(native.stdout)), hashes, "the SHA-256 of every PDF equals the WebAssembly engine's")
  })

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
    `import { LOCALES, type RenderRequest, type RenderResult, Renderer, render, type TemplateId } from "pressroom"
import { NotFoundError, PressroomClient, PressroomError } from "pressroom/client"
const templateId: TemplateId = "academic"
const request: RenderRequest = { markdown: "# Typed", templateId: "clean", locale: LOCALES[0], options: { pageNumbers: true } }
const renderer = await Renderer.create({ workers: 1 })
await renderer.render({ markdown: "# Typed", templateId, locale: "pt-BR" })
const result: RenderResult = await render(request)
const pages: number = result.pageCount
console.log(pages, result.provenance.templateId)
const client = new PressroomClient({ baseUrl: "http://127.0.0.1:8080", apiKey: "pk_live_0" })
try {
  const { job } = await client.jobs.get({ path: { jobId: "00000000-0000-4000-8000-000000000000" } })
  const status: "accepted" | "queued" | "running" | "succeeded" | "failed" | "cancelled" = job.status
  console.log(status)
  await client.jobs.cancel({ path: { jobId: job.id } })
  await client.artifacts.download({ path: { artifactId: job.id } })
  await client.documents.create({
    payload: { taskId: "typed", title: null, revision: { markdown: "# Typed", parentRevisionId: null, spec: { locale: "ja", templateId } } }
  })
} catch (error) {
  if (error instanceof NotFoundError) console.log(error.code, error.httpStatus)
  else if (error instanceof PressroomError) console.log(error.retryable)
}
`
  )
  writeFileSync(
    join(project, "bad.ts"),
    `import { render } from "pressroom"
import { PressroomClient } from "pressroom/client"
await render({ markdown: "# Typed", templateId: "clen" })
await render({ markdown: "# Typed", templateId: "clean", locale: "pt" })
await new PressroomClient({ baseUrl: "http://127.0.0.1:8080" }).documents.create({
  payload: { taskId: "typed", title: null, revision: { markdown: "# Typed", parentRevisionId: null, spec: { locale: "en", templateId: "clen" } } }
})
`
  )
  // Both files in one check per module resolution: the only errors are bad.ts's, so good.ts and the
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
    t.same(run.stdout.trim().split("\n"), EXPECTED_TYPE_ERRORS, `${name}: on bad.ts's template ids and locale only`)
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

t.test("pressroom/client publishes a document on a running server and downloads its PDF", async (t) => {
  const server = await startServer(t, {})
  const { key } = await createAccount(server)
  writeFileSync(
    join(project, "client-app.mjs"),
    `import { writeFileSync } from "node:fs"
import { PressroomClient } from "pressroom/client"
const client = new PressroomClient({ baseUrl: process.env.PRESSROOM_URL, apiKey: process.env.PRESSROOM_API_KEY })
const { document, revision } = await client.documents.create({
  payload: { taskId: "package", title: null, revision: { markdown: "# Aus dem Paket\\n\\nVeröffentlicht.", parentRevisionId: null, spec: { locale: "de", templateId: "clean" } } }
})
const { job } = await client.documents.createPublication({
  path: { documentId: document.id },
  payload: { revisionId: revision.id, output: { filename: "paket.pdf", format: "pdf" } }
})
let ended = await client.jobs.get({ path: { jobId: job.id } })
while (ended.job.status === "accepted" || ended.job.status === "queued" || ended.job.status === "running") {
  await new Promise((resolve) => setTimeout(resolve, 100))
  ended = await client.jobs.get({ path: { jobId: job.id } })
}
const pdf = await client.artifacts.download({ path: { artifactId: ended.artifact.id } })
writeFileSync("published.pdf", pdf)
console.log(JSON.stringify({ status: ended.job.status, filename: ended.artifact.filename }))
`
  )
  const run = await runIn(project, process.execPath, ["client-app.mjs"], { PRESSROOM_URL: server.url, PRESSROOM_API_KEY: key })
  t.equal(run.code, 0, run.stderr)
  t.same(JSON.parse(lastLine(run.stdout)), { status: "succeeded", filename: "paket.pdf" })
  const pdf = readFileSync(join(project, "published.pdf"))
  t.ok(isValidPdf(pdf), "the downloaded file is a PDF")
  t.match(pdfText(pdf), /Aus dem Paket Veröffentlicht\./)
})
