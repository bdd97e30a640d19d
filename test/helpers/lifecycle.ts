/** What the v2 lifecycle tests share: a document that keeps a render busy, and waiting for what a client can observe. */

/**
 * 199,500 characters of a one-column table whose 5,700 cells each hold a formula: 5,701 blocks,
 * within the bounds of a document (markdown/block-count.ts), yet among the slowest documents to
 * typeset (9.4 s with the WebAssembly engine on an idle AMD EPYC, far longer beside other work).
 * It holds the one render worker until it is cancelled or passes the server's
 * PRESSROOM_RENDER_TIMEOUT_MS (then it fails with rendering_failed, the document's fault). A table
 * of 24,000 cells did this for longer until a document was bounded to 8,000 blocks: now it is
 * refused at once. A test that needs a worker held for good stops its process (cluster.test.ts).
 */
export const slowDocument = `| a |\n|---|\n${"| $\\frac{a}{b} x^2 \\sqrt{y}$ *e* |\n".repeat(5700)}`

/**
 * `count` short sections of about 110 characters each: a render of a few seconds at a few
 * hundred, long enough to kill or pause its process mid-render, short of the render deadline.
 */
export const sectionsMarkdown = (count: number) =>
  Array.from(
    { length: count },
    (_, i) => `## Section ${i}\n\nParagraph ${i} with *emphasis*, **strength** and \`code\`; the render must outlast a signal.\n`
  ).join("\n")

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `check` until it answers something truthy, or throws after `timeoutMs` naming `what`. */
export const until = async <A>(what: string, check: () => Promise<A>, timeoutMs = 30_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (true) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}
