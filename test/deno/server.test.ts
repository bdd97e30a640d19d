/**
 * The same server under Deno 2 (the `serve` task of deno.json): it starts, converts a document
 * through v1, and the PDF is byte for byte the one the Node server returns.
 */
import t from "tap"
import { convert, createAccount } from "../helpers/api.ts"
import { freshDatabase } from "../helpers/database.ts"
import { pdfText } from "../helpers/pdf.ts"
import { startServer } from "../helpers/server.ts"
import type { TestContext } from "../helpers/tap.ts"

const request = {
  markdown: "# Same bytes\n\nWhatever the runtime, **this** renders identically: ünïcødé, 日本語, العربية.",
  templateId: "executive",
  locale: "de",
  options: { pageNumbers: true }
}

const convertOn = async (t: TestContext, runtime: "node" | "deno") => {
  const database = await freshDatabase("pglite")
  t.teardown(database.drop)
  const server = await startServer(t, database.env, runtime)
  const account = await createAccount(server)
  const response = await convert(server, account.key, request)
  await server.stop()
  return response
}

t.test("Deno and Node servers convert to the same bytes", async (t) => {
  const underDeno = await convertOn(t, "deno")
  t.equal(underDeno.status, 200, "Deno serves v1 convert")
  t.match(pdfText(underDeno.pdf!), /Same bytes/)
  const underNode = await convertOn(t, "node")
  t.equal(underNode.status, 200)
  t.ok(Buffer.from(underDeno.pdf!).equals(Buffer.from(underNode.pdf!)), "Deno and Node return the same PDF bytes")
})
