/**
 * Fair claims through a real server with real renders (one render worker, as the test servers
 * run): one account sends four long reports (~50 KB of Markdown each) and another, once those
 * are queued, a one-line document. The one-line document is answered while at least two of the
 * heavy ones are still waiting, instead of after all four. Order is asserted, not time.
 */
import t from "tap"
import { report } from "../../bench/documents.ts"
import { convert, createAccount } from "../helpers/api.ts"
import { startServer } from "../helpers/server.ts"

/** The number `pressroom_queue_depth` reports: jobs waiting to be claimed. */
const queueDepth = async (url: string) => {
  const text = await (await fetch(`${url}/metrics`)).text()
  return Number(/^pressroom_queue_depth (\d+)$/m.exec(text)?.[1] ?? Number.NaN)
}

t.test("another account's one-line document is not queued behind one account's heavy documents", async (t) => {
  const server = await startServer(t, {
    PRESSROOM_RATE_LIMIT_CONVERT_PER_MINUTE: "1000",
    // The heavy renders still running when the test ends are not waited for.
    PRESSROOM_SHUTDOWN_GRACE_MS: "100"
  })
  const heavy = await createAccount(server, { plan: "yearly" })
  const light = await createAccount(server, { plan: "yearly" })
  const heavyMarkdown = report(60)

  const finished: Array<string> = []
  const heavyRequests = Array.from({ length: 4 }, (_, i) =>
    convert(server, heavy.key, { markdown: `# Heavy ${i}\n\n${heavyMarkdown}` }).then(
      (response) => finished.push(`heavy ${response.status}`),
      () => finished.push("heavy, cut off when the server stopped")
    )
  )
  // One heavy document renders on the only worker; the other three wait.
  while ((await queueDepth(server.url)) < 3) await new Promise((resolve) => setTimeout(resolve, 50))

  const response = await convert(server, light.key, { markdown: "# One line" })
  t.equal(response.status, 200)
  t.ok(
    finished.length <= 2,
    `the one-line document was answered while at least two heavy ones were still waiting (${finished.length} of 4 had finished)`
  )
  await server.stop()
  await Promise.all(heavyRequests)
})
