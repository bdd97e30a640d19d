/**
 * docs/webhooks.md's recipe for a laptop, run as written (issue 38): the certificate one-liner,
 * the server started with its settings, the README's key, a subscription, the receiver of a dozen
 * lines verifying with `standardwebhooks`, a publication (the README's block), the delivery seen
 * delivered, and a redelivery. `~` is a fresh folder (HOME), where the receiver finds
 * `standardwebhooks` as after `npm install` there; the ports are free ones.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t from "tap"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { markedBlocks } from "../helpers/doc-blocks.ts"
import { freePort, runDocScript } from "../helpers/doc-script.ts"
import { until } from "../helpers/lifecycle.ts"
import { TEST_SERVER_KEY } from "../helpers/server-key.ts"

t.test("the webhook recipe receives, verifies and receives again a delivery", (t) =>
  forEachDatabase(t, async (t, database) => {
    const [certificate, server, subscribe, receiver, resend] = markedBlocks("docs/webhooks.md", "webhook-recipe").map((block) => block.code)
    const [, makeKey, , publish] = markedBlocks("README.md", "quickstart").map((block) => block.code)
    t.ok(certificate && server && subscribe && receiver && resend && makeKey && publish, "the recipe's five blocks and the README's")
    const [apiPort, hookPort] = [await freePort(), await freePort()]
    const home = mkdtempSync(join(tmpdir(), "pressroom-hooks-home-"))
    const dataDir = mkdtempSync(join(tmpdir(), "pressroom-hooks-data-"))
    t.teardown(() => {
      rmSync(home, { recursive: true, force: true })
      rmSync(dataDir, { recursive: true, force: true })
    })
    mkdirSync(join(home, "pressroom-hooks"))
    symlinkSync(join(packageRoot, "node_modules"), join(home, "pressroom-hooks", "node_modules"))

    const ports = (code: string) => code.replaceAll("127.0.0.1:8080", `127.0.0.1:${apiPort}`).replaceAll("8443", String(hookPort))
    const script = [
      certificate!,
      `cd ${JSON.stringify(packageRoot)}`,
      server!,
      "cd ~/pressroom-hooks",
      makeKey!,
      subscribe!,
      receiver!,
      publish!,
      resend!
    ]
      .map(ports)
      .join("\n")
    const run = runDocScript(t, script, home, {
      HOME: home,
      PORT: String(apiPort),
      PRESSROOM_DATA_DIR: dataDir,
      PRESSROOM_RENDER_WORKERS: "1",
      ...(database.env.DATABASE_URL ? { PRESSROOM_SERVER_KEY: TEST_SERVER_KEY } : {}),
      ...database.env
    })
    t.equal(await run.exited, 0, "every block ran without an error", { output: run.output() })

    const verified = await until("the receiver to verify the delivery and its redelivery", async () => {
      const lines = [...run.output().matchAll(/^verified (\S+) (\S+) (\S+)$/gm)]
      return lines.length >= 2 ? lines : undefined
    }).then((lines) => lines!)
    t.equal(verified[0]![2], "job.succeeded", "the publication's end was delivered")
    t.equal(verified[1]![1], verified[0]![1], "the redelivery carries the same webhook-id")
    t.equal(verified[1]![3], verified[0]![3], "and the same job")
    t.notMatch(run.output(), /^refused/m, "no delivery failed verification")
  })
)
