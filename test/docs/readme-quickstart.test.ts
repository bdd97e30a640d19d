/**
 * The README's quickstart, run as a reader runs it (issue 38): every shell block marked
 * `<!-- test: quickstart -->`, in order, in one bash, from the checkout (`npm start` needs it).
 * The README's port is replaced by a free one, and the server gets a fresh data folder (or a fresh
 * PostgreSQL database) and PRESSROOM_SYNC_THRESHOLD_MS=0, so every publication answers 202 and the
 * quickstart must poll its job: an example that reads the artifact from the first answer fails.
 * The PDFs it downloads are read back.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t from "tap"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { markedBlocks } from "../helpers/doc-blocks.ts"
import { freePort, runDocScript } from "../helpers/doc-script.ts"
import { pageTexts } from "../helpers/pdf.ts"
import { TEST_SERVER_KEY } from "../helpers/server-key.ts"

const README_ADDRESS = "127.0.0.1:8080"

t.test("the README's quickstart runs as written, and survives a 202", (t) =>
  forEachDatabase(t, async (t, database) => {
    const blocks = markedBlocks("README.md", "quickstart")
    t.ok(blocks.length >= 3, "the quickstart's blocks are marked")
    t.ok(blocks[0]!.code.includes(README_ADDRESS), `the README's server listens on ${README_ADDRESS}`)
    const port = await freePort()
    const downloads = mkdtempSync(join(tmpdir(), "pressroom-readme-"))
    const dataDir = mkdtempSync(join(tmpdir(), "pressroom-readme-data-"))
    t.teardown(() => {
      rmSync(downloads, { recursive: true, force: true })
      rmSync(dataDir, { recursive: true, force: true })
    })
    // The server starts from the checkout, as `npm start` must; what the reader downloads lands
    // in a temporary folder rather than in the checkout.
    const [start, ...rest] = blocks.map((block) => block.code.replaceAll(README_ADDRESS, `127.0.0.1:${port}`))
    const script = [start, `cd ${JSON.stringify(downloads)}`, ...rest].join("\n")
    const run = runDocScript(t, script, packageRoot, {
      PORT: String(port),
      PRESSROOM_DATA_DIR: dataDir,
      PRESSROOM_SYNC_THRESHOLD_MS: "0",
      PRESSROOM_RENDER_WORKERS: "1",
      ...(database.env.DATABASE_URL ? { PRESSROOM_SERVER_KEY: TEST_SERVER_KEY } : {}),
      ...database.env
    })
    t.equal(await run.exited, 0, "every block ran without an error", { output: run.output() })

    for (const [file, words] of [
      ["report.pdf", "Quarterly report"],
      ["q3.pdf", "Q3"],
      ["q3-shared.pdf", "Q3"]
    ] as const) {
      const bytes = new Uint8Array(readFileSync(join(downloads, file)))
      t.match(pageTexts(bytes).join("\n"), words, `${file} is the PDF of its Markdown`)
    }
    t.same(readFileSync(join(downloads, "q3.pdf")), readFileSync(join(downloads, "q3-shared.pdf")), "the link serves the same bytes")
  })
)
