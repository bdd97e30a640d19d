/** Shared pieces for renderer tests. */
import { createHash } from "node:crypto"
import type { RenderEngine } from "../../src/render/renderer.ts"

export const sha256 = (data: Uint8Array | string): string => createHash("sha256").update(data).digest("hex")

/**
 * The engine the suite's in-process renderers use: PRESSROOM_RENDER_ENGINE, WebAssembly unless it
 * says native (renderer-corpus-native.test.ts runs the renderer corpus again with the native engine).
 */
export const testEngine: RenderEngine = process.env.PRESSROOM_RENDER_ENGINE === "native" ? "native" : "wasm"

/**
 * The engine of the servers tests start unless PRESSROOM_RENDER_ENGINE says otherwise (the run's
 * shared servers always). A
 * server test checks the API, and both engines give the same bytes (contract section 11); native
 * renders for less CPU (a third less for a file that renders much; the same for one that mostly
 * starts servers), and CPU is what the suite's time is made of. The WebAssembly engine
 * is what `npm start` runs: the renderer tests check it in process, the suite's `npm start` tests
 * (serve-start, the README's quickstart, the webhook recipe) through a server, and the server
 * files that render most run again with PRESSROOM_RENDER_ENGINE=wasm (convert-wasm.test.ts,
 * reproducibility-wasm.test.ts).
 */
export const DEFAULT_SERVER_ENGINE: RenderEngine = "native"

/** The engine of the servers this file starts: PRESSROOM_RENDER_ENGINE when it says wasm, the default otherwise. */
export const serverEngine: RenderEngine = process.env.PRESSROOM_RENDER_ENGINE === "wasm" ? "wasm" : DEFAULT_SERVER_ENGINE

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

/** A sixty-page report: far more than a 16 MiB heap holds while it is parsed and converted. */
export const largeReport = (): string =>
  Array.from(
    { length: 150 },
    (_, i) =>
      `## ${i}. Results for area ${i}\n\nRevenue grew in the *enterprise* segment while **costs** stayed flat.[^n${i}]\n\n` +
      `- Throughput rose by 4.2%\n- Backlog fell to 12 days\n\n| Metric | Q1 | Q2 |\n|:--|--:|--:|\n| Orders | 1,204 | 1,311 |\n\n` +
      `[^n${i}]: Figures are unaudited.\n`
  ).join("\n")
