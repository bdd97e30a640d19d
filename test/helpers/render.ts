/** Shared pieces for renderer tests. */
import { createHash } from "node:crypto"
import type { RenderEngine } from "../../src/render/renderer.ts"

export const sha256 = (data: Uint8Array | string): string => createHash("sha256").update(data).digest("hex")

/**
 * The engine the suite's renderers use: PRESSROOM_RENDER_ENGINE, as the servers that tests start
 * read it (.ci/run runs a subset of the suite again with the native engine).
 */
export const testEngine: RenderEngine = process.env.PRESSROOM_RENDER_ENGINE === "native" ? "native" : "wasm"

/** Runs `fn` over `items` with at most `limit` in flight, keeping order. */
export const mapLimit = async <A, B>(
  items: ReadonlyArray<A>,
  limit: number,
  fn: (item: A, index: number) => Promise<B>
): Promise<Array<B>> => {
  const out = new Array<B>(items.length)
  let next = 0
  const run = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i]!, i)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run))
  return out
}

/** Tiny valid images, base64. */
export const PNG_1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
export const GIF_1x1 = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"
export const SVG_SQUARE = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="#c00"/></svg>'
