/**
 * Which native Typst compiler binary this platform runs. `@myriaddreamin/typst-ts-node-compiler`
 * (an optional dependency) installs one package per platform, `…-node-compiler-<platform>`, as its
 * optionalDependencies; npm installs only the one for the machine. The worker loads the `.node`
 * file resolved here, and its SHA-256 is `rendererReleaseChecksum`: the binary that ran, whatever
 * the platform.
 */
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"

export const NATIVE_PACKAGE = "@myriaddreamin/typst-ts-node-compiler"

/** The platform packages the release ships, by `platform-arch` (and C library on Linux), as its own loader names them. */
const PLATFORM_SUFFIXES: Readonly<Record<string, string>> = {
  "android-arm64": "android-arm64",
  "android-arm": "android-arm-eabi",
  "darwin-arm64": "darwin-arm64",
  "darwin-x64": "darwin-x64",
  "linux-arm-gnu": "linux-arm-gnueabihf",
  "linux-arm64-gnu": "linux-arm64-gnu",
  "linux-arm64-musl": "linux-arm64-musl",
  "linux-x64-gnu": "linux-x64-gnu",
  "linux-x64-musl": "linux-x64-musl",
  "win32-arm64": "win32-arm64-msvc",
  "win32-x64": "win32-x64-msvc"
}

export interface Platform {
  readonly platform: string
  readonly arch: string
  /** On Linux, whether the C library is musl (Alpine) rather than glibc. */
  readonly musl: boolean
}

/** This process's platform; on Linux, glibc unless Node's report names no glibc (as the package's own loader decides). */
export const currentPlatform = (): Platform => {
  const header = process.platform === "linux" ? (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } }) : undefined
  return { platform: process.platform, arch: process.arch, musl: header !== undefined && !header.header?.glibcVersionRuntime }
}

export interface NativeBinary {
  /** The `.node` file the worker loads. */
  readonly path: string
  /** The typst.ts release. */
  readonly version: string
}

/** The native binary cannot run here: a one-line reason, naming the variable and the package. */
export class NativeEngineUnavailable extends Error {
  override readonly name = "NativeEngineUnavailable"
}

const unavailable = (why: string): NativeEngineUnavailable =>
  new NativeEngineUnavailable(`PRESSROOM_RENDER_ENGINE=native cannot start: ${why}; use PRESSROOM_RENDER_ENGINE=wasm`)

/**
 * The binary for `platform`, installed under `root` (the package's folder), or NativeEngineUnavailable
 * saying why not. `release` is the WebAssembly compiler's version: the engines give the same bytes
 * (contract section 11) only as builds of one typst.ts release, so a binary of another is refused.
 */
export const resolveNativeBinary = (root: string, release: string, platform: Platform = currentPlatform()): NativeBinary => {
  if ("Deno" in globalThis) throw unavailable(`the native compiler (${NATIVE_PACKAGE}) runs under Node only`)
  const key =
    platform.platform === "linux" ? `linux-${platform.arch}-${platform.musl ? "musl" : "gnu"}` : `${platform.platform}-${platform.arch}`
  const suffix = PLATFORM_SUFFIXES[key]
  if (!suffix) throw unavailable(`${NATIVE_PACKAGE} ships no binary for ${key}`)
  const require = createRequire(join(root, "package.json"))
  const platformPackage = `${NATIVE_PACKAGE}-${suffix}`
  let path: string
  let version: string
  try {
    const manifestPath = require.resolve(`${platformPackage}/package.json`)
    const manifest = require(manifestPath) as { version: string; main: string }
    path = join(manifestPath, "..", manifest.main)
    version = manifest.version
  } catch {
    throw unavailable(`${platformPackage} is not installed (npm install installs it with the optional dependency ${NATIVE_PACKAGE})`)
  }
  if (!existsSync(path)) throw unavailable(`${platformPackage} has no ${path}`)
  if (version !== release) throw unavailable(`${platformPackage} is ${version}, not ${release} as the WebAssembly compiler`)
  return { path, version }
}
