/**
 * The WebAssembly engine: typst.ts's WASM compiler in worker threads (render-worker.ts), in the
 * pool every engine shares (pool.ts). The portable reference: it runs under Node and Deno.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { sha256Hex } from "../../shared/hash.ts"
import { type Coverage, coverageFromRuns } from "../fonts/coverage.ts"
import { packageRoot, type VerifiedFont } from "../fonts/manifest.ts"
import type { BundleFile } from "./bundle.ts"
import { FUNCTION_TABLE_EXPORT, MEMO_LAYOUTS, type MemoLayout } from "./memo-eviction.ts"
import { DEFAULT_COMPILER_MEMORY_MIB, DEFAULT_WORKER_HEAP_MIB, EnginePool, TYPST_VERSION } from "./pool.ts"
import type { RenderWorkerData } from "./render-worker.ts"
import { workerUrl } from "./render-worker-url.ts"
import { exportFunctionTable, limitMemory } from "./table-export.ts"
import { threadHost } from "./thread-host.ts"
import type { FontInfo } from "./wasm-compiler.ts"

export interface WasmPoolOptions {
  readonly size: number
  readonly timeoutMs: number
  readonly fonts: ReadonlyArray<VerifiedFont>
  readonly bundle: ReadonlyArray<BundleFile>
  /** A worker whose WASM memory grew past this is replaced after its task (docs/renderer.md, "Typst's memo cache is evicted"). */
  readonly recycleAboveBytes: number
  /** Whether each worker typesets a warm-up page before it takes jobs (RendererConfig.warmUp). */
  readonly warmUp: boolean
  /** How long a worker may take to evict after a job before it is taken for hung (default EVICTION_TIMEOUT_MS). */
  readonly evictionTimeoutMs?: number
  /** Memo layouts by release checksum (default MEMO_LAYOUTS); a test passes none to start a binary that has no layout. */
  readonly memoLayouts?: Readonly<Record<string, MemoLayout>>
  /** The JavaScript heap (V8's old generation) a worker converts a document in, in MiB (default DEFAULT_WORKER_HEAP_MIB). */
  readonly heapMiB?: number
  /**
   * The most a compiler instance's WebAssembly memory may grow to, in bytes (default
   * DEFAULT_COMPILER_MEMORY_MIB): an allocation past it traps inside the render, which then fails
   * as the document's fault, instead of the memory being looked at only after the render.
   */
  readonly compilerMemoryBytes?: number
}

const compilerPackage = "@myriaddreamin/typst-ts-web-compiler"

/**
 * The compiler thread's JavaScript heap: twice the compiler's memory bound and some, so that the
 * memory's growth stays under V8's external memory limit (half the old generation) and costs no
 * full collection at each step (converter.ts). What the thread itself allocates is small: the
 * bundle, the fonts' descriptions, one document's Typst source and its PDF.
 */
const compilerHeapMiB = (compilerMemoryBytes: number): number => 2 * Math.ceil(compilerMemoryBytes / 2 ** 20) + 64

/** Where the released compiler binary is installed (its SHA-256 is `rendererReleaseChecksum`), and its version. */
export const compilerRelease = (): { readonly binaryPath: string; readonly version: string } => {
  const require = createRequire(`${packageRoot}/package.json`)
  return {
    binaryPath: require.resolve(`${compilerPackage}/pkg/typst_ts_web_compiler_bg.wasm`),
    version: (require(`${compilerPackage}/package.json`) as { version: string }).version
  }
}

export class WasmEnginePool extends EnginePool {
  /** Typst's description of the fonts, from the first worker that started; later workers start from it. */
  private readonly described: { fontInfos?: ReadonlyArray<FontInfo> }

  constructor(options: WasmPoolOptions) {
    const release = compilerRelease()
    const binary = readFileSync(release.binaryPath)
    const releaseChecksum = sha256Hex(binary)
    const memoLayout = (options.memoLayouts ?? MEMO_LAYOUTS)[releaseChecksum]
    // Fails open: a binary without a layout (a typst.ts upgrade before `npm run memo-layout`)
    // renders the same PDFs, only with memory that grows with every distinct document up to the
    // recycle threshold, as before the eviction.
    if (!memoLayout) {
      console.warn(
        `pressroom: ${compilerPackage} ${release.version} (sha256 ${releaseChecksum}) has no memo layout in memo-eviction.ts, so Typst's memo cache is not evicted in this compiler build; ` +
          "worker recycling (PRESSROOM_RENDER_WORKER_MEMORY_MB) bounds the workers' memory instead (npm run memo-layout finds the layout)"
      )
    }
    const described: { fontInfos?: ReadonlyArray<FontInfo> } = {}
    const compilerMemoryBytes = options.compilerMemoryBytes ?? DEFAULT_COMPILER_MEMORY_MIB * 1024 * 1024
    // One compiled module, shared by every worker.
    const workerData: Omit<RenderWorkerData, "fontInfos"> = {
      module: new WebAssembly.Module(limitMemory(exportFunctionTable(binary, FUNCTION_TABLE_EXPORT), compilerMemoryBytes)),
      memoLayout,
      fonts: options.fonts.map(({ path, sha256, where }) => ({ path, sha256, where })),
      bundle: options.bundle,
      warmUp: options.warmUp,
      converterUrl: workerUrl("convert-worker").href,
      converterHeapMiB: options.heapMiB ?? DEFAULT_WORKER_HEAP_MIB
    }
    super(
      {
        size: options.size,
        timeoutMs: options.timeoutMs,
        recycleAboveBytes: options.recycleAboveBytes,
        ...(options.evictionTimeoutMs === undefined ? {} : { evictionTimeoutMs: options.evictionTimeoutMs }),
        engineVersion: `typst ${TYPST_VERSION} (typst.ts ${release.version}, wasm)`,
        releaseChecksum,
        // Resolved once, as the converter's above: without a built worker (Node) the pool fails to
        // start, saying to run npm run build.
        start: threadHost(
          workerUrl("render-worker"),
          (): RenderWorkerData => ({ ...workerData, fontInfos: described.fontInfos }),
          compilerHeapMiB(compilerMemoryBytes)
        )
      },
      (ready) => {
        described.fontInfos ??= ready.fontInfos
      }
    )
    this.described = described
  }

  /** The code points the font set covers, as Typst sees the fonts (known once warm). */
  get coverage(): Coverage {
    if (!this.described.fontInfos) throw new Error("the pool is not warm yet")
    return coverageFromRuns(this.described.fontInfos.flatMap((font) => font.info.map((face) => face.coverage)))
  }
}
