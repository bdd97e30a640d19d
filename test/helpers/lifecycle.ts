/** What the v2 lifecycle tests share: a document that keeps a render busy, and waiting for what a client can observe. */

/**
 * 186,000 characters of one table: it takes far longer to typeset than a few seconds, so it holds
 * the one render worker until it is cancelled or passes the server's PRESSROOM_RENDER_TIMEOUT_MS
 * (then it fails with rendering_failed, the document's fault).
 */
export const slowTable = `| a | b | c | d |\n|---|---|---|---|\n${"| xx yy | zz ww | 12.5 | *e* |\n".repeat(6000)}`

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
