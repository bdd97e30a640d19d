/**
 * The library entry as an embedding application uses it: the `render` function with its shared
 * pool, and the Effect service.
 */
import t from "tap"
import { Effect, Exit } from "effect"
import { InvalidRenderRequest, render, RenderService } from "../src/index.ts"
import { isValidPdf, pdfText } from "./helpers/pdf.ts"
import { sha256 } from "./helpers/render.ts"

t.test("render() works without any setup and shares its pool", async (t) => {
  const [a, b] = await Promise.all([
    render({ markdown: "# Embedded\n\nFrom the library.", templateId: "clean" }),
    render({ markdown: "# Second", templateId: "academic", locale: "fr" })
  ])
  t.ok(isValidPdf(a.pdf))
  t.match(pdfText(a.pdf), /From the library/)
  t.equal(a.sha256, sha256(a.pdf))
  t.equal(b.provenance.locale, "fr")
  await t.rejects(render({ markdown: "x", templateId: "clean", options: { pageNumbers: "yes" } }), InvalidRenderRequest)
})

t.test("the Effect layer renders and reports typed errors", async (t) => {
  const program = Effect.gen(function* () {
    const renderer = yield* RenderService
    const ok = yield* renderer.render({ markdown: "# From Effect", templateId: "creative", options: { creativeAccent: "emerald" } })
    const refused = yield* Effect.exit(renderer.render({ markdown: "x", templateId: "resume-nonexistent" as "resume" }))
    return { ok, refused }
  })
  const { ok, refused } = await Effect.runPromise(Effect.scoped(program.pipe(Effect.provide(RenderService.Default))))
  t.match(pdfText(ok.pdf), /From Effect/)
  t.ok(Exit.isFailure(refused), "an unknown template fails")
  if (Exit.isFailure(refused)) t.match(String(refused.cause), /InvalidRenderRequest/)
})
