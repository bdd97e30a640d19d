/**
 * How long Markdown may be (specification 2.5: 1 to 200,000 characters), counted as the
 * specification counts characters. Data and a pure function only: the API definition checks the
 * v1 request with it, and a client importing that definition loads nothing of the renderer.
 */
export const MAX_MARKDOWN_CHARACTERS = 200_000

/** Characters as the specification counts them: Unicode code points, not UTF-16 units. */
export const countCharacters = (text: string): number => {
  let count = 0
  for (const _ of text) count++
  return count
}
