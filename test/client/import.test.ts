/**
 * `pressroom/client` is a browser-sized dependency (issue 21): bundled for the browser, nothing it
 * holds is renderer, font, WebAssembly, worker or database code, and the bundle imports nothing
 * else; imported in a fresh Node process and used to build a client, it compiles no WebAssembly
 * and loads no Node module. The bundle's size is printed for the README.
 */
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { gzipSync } from "node:zlib"
import t from "tap"
import { packageRoot } from "../../src/render/fonts/manifest.ts"

/** What the client may not hold, however indirectly. */
const FORBIDDEN = [
  /^src\/render\/engine\//,
  /^src\/render\/fonts\//,
  /^src\/render\/(renderer|service|typeset|markdown\/)/,
  /^src\/db\//,
  /node_modules\/(@electric-sql\/pglite|@myriaddreamin\/|pg\/|pg-[^/]+\/|mupdf\/|@effect\/sql)/,
  /\.wasm$/
]

/** Node modules that the renderer, the fonts or a database would need, and a browser has not. */
const HEAVY_NODE_MODULES = /^NativeModule (worker_threads|wasi|fs|fs\/promises|child_process|net|tls|http|https|crypto|zlib|module)$/

t.test("the client bundle holds schemas and data, no engine", async (t) => {
  const result = await build({
    entryPoints: ["src/client/index.ts"],
    absWorkingDir: packageRoot,
    bundle: true,
    minify: true,
    platform: "browser",
    format: "esm",
    metafile: true,
    write: false,
    logLevel: "silent"
  })
  const [output] = Object.values(result.metafile.outputs)
  const held = Object.entries(output!.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path)
  const parsed = Object.keys(result.metafile.inputs)
  t.same(
    parsed.filter((path) => FORBIDDEN.some((pattern) => pattern.test(path))),
    [],
    "no renderer, font, WebAssembly or database module is even read"
  )
  t.ok(
    held.some((path) => path === "src/http/api.ts"),
    "it is built from the API definition"
  )
  t.same(output!.imports, [], "the bundle imports nothing (no node: module, no package)")
  const bytes = result.outputFiles[0]!.contents
  t.comment(`client bundle: ${(bytes.length / 1024).toFixed(0)} KiB minified, ${(gzipSync(bytes).length / 1024).toFixed(0)} KiB gzipped`)

  const dir = mkdtempSync(join(tmpdir(), "pressroom-client-"))
  const bundle = join(dir, "client.mjs")
  writeFileSync(bundle, bytes)
  const probe = join(dir, "probe.mjs")
  writeFileSync(
    probe,
    `const compiled = []
for (const name of ["compile", "compileStreaming", "instantiate", "instantiateStreaming", "validate"]) {
  const original = WebAssembly[name]
  WebAssembly[name] = (...args) => (compiled.push(name), original.apply(WebAssembly, args))
}
const OriginalModule = WebAssembly.Module
WebAssembly.Module = function (...args) { compiled.push("Module"); return new OriginalModule(...args) }
const before = new Set(process.moduleLoadList)
const client = await import(${JSON.stringify(pathToFileURL(bundle).href)})
const instance = new client.PressroomClient({ baseUrl: "http://127.0.0.1:9", apiKey: "pk_live_${"0".repeat(32)}" })
console.log(JSON.stringify({
  compiled,
  loaded: process.moduleLoadList.filter((name) => !before.has(name) && name.startsWith("NativeModule ")),
  groups: Object.keys(instance).sort()
}))
`
  )
  const child = spawnSync(process.execPath, [probe], { encoding: "utf8" })
  t.equal(child.status, 0, child.stderr)
  const report = JSON.parse(child.stdout) as { compiled: Array<string>; loaded: Array<string>; groups: Array<string> }
  t.same(report.compiled, [], "no WebAssembly compiled")
  // Node loads some of its internals for any ES module, and perf_hooks for the global `performance` Effect reads.
  t.same(
    report.loaded.filter((name) => HEAVY_NODE_MODULES.test(name)),
    [],
    `no worker, WebAssembly system, file, process, network or crypto module loaded (${report.loaded.length} internals were)`
  )
  t.same(
    report.groups,
    ["admin", "artifactLinks", "artifacts", "documents", "jobs", "membersAdmin", "ops", "templates", "v1", "webhooks"],
    "every group of the API"
  )
})
