/**
 * The compiler worker as one ES module, bundled with esbuild when the first pool starts. Workers
 * then load plain JavaScript, the same under Node and Deno, without a TypeScript loader, and the
 * bundle is made from the sources in this checkout, so it can never be stale.
 */
import { buildSync } from "esbuild"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { repositoryRoot } from "../fonts/manifest.ts"

let cached: URL | undefined

export const renderWorkerUrl = (): URL => {
  if (cached) return cached
  const result = buildSync({
    entryPoints: [join(repositoryRoot, "src", "render", "engine", "render-worker.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    target: "es2022",
    write: false,
    logLevel: "silent",
    // Some dependencies are CommonJS (yaml requires node built-ins); give the bundle a require.
    banner: {
      js: `import { createRequire as __createRequire } from "node:module"; const require = __createRequire(${JSON.stringify(pathToFileURL(join(repositoryRoot, "package.json")).href)});`
    }
  })
  cached = new URL(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0]!.contents).toString("base64")}`)
  return cached
}
