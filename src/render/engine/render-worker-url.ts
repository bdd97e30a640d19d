/**
 * Where the WebAssembly engine's threads load their code from: the pool's workers from
 * render-worker.ts, and each worker's converter from convert-worker.ts (converter.ts). Under Node:
 * their build, dist/render-worker.js and dist/convert-worker.js (scripts/build.ts, which npm
 * install, npm pack and npm test run), plain JavaScript with its packages bundled, as the
 * pressroom command is. Node processes that run the sources (tap's tests,
 * `npm run dev`) load the built worker too, which is fine as long as they build first, as npm test
 * and npm run dev do: an edit to the worker's modules (the Markdown conversion, typesetting)
 * reaches a dev server when it is started again, not when tsx watch restarts it.
 * Deno runs TypeScript workers natively: running the sources (the deno.json tasks) it loads the
 * worker's source, so they need no build; running the build (the installed package, which ships
 * no src/) it loads the built worker, as Node does.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { packageRoot } from "../fonts/manifest.ts"

/** True when this module runs as its source, not bundled into dist/. */
const fromSource = import.meta.url.endsWith(".ts")

export const workerUrl = (name: "render-worker" | "convert-worker"): URL => {
  if ("Deno" in globalThis && fromSource) return pathToFileURL(join(packageRoot, "src", "render", "engine", `${name}.ts`))
  const built = join(packageRoot, "dist", `${name}.js`)
  if (!existsSync(built)) throw new Error(`the ${name.replace("-", " ")} is not built (${built}): run npm run build`)
  return pathToFileURL(built)
}
