/**
 * The native engine: typst.ts's native compiler in child processes (native-worker.ts), in the pool
 * every engine shares (pool.ts). Faster on long documents; Node only, on the platforms the
 * compiler ships a binary for (native-binary.ts).
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { fileSha256 } from "../../shared/hash.ts"
import { packageRoot, type VerifiedFont } from "../fonts/manifest.ts"
import { templatesRoot } from "./bundle.ts"
import { resolveNativeBinary } from "./native-binary.ts"
import type { NativeWorkerSetup } from "./native-worker.ts"
import { DEFAULT_COMPILER_MEMORY_MIB, DEFAULT_WORKER_HEAP_MIB, EnginePool, TYPST_VERSION } from "./pool.ts"
import { processHost } from "./process-host.ts"
import { compilerRelease } from "./wasm-pool.ts"

export interface NativePoolOptions {
  readonly size: number
  readonly timeoutMs: number
  readonly fonts: ReadonlyArray<VerifiedFont>
  /** A worker whose resident memory is past this after a job is replaced. */
  readonly recycleAboveBytes: number
  readonly warmUp: boolean
  readonly evictionTimeoutMs?: number
  /** A worker's JavaScript heap (V8's old generation), in MiB (default DEFAULT_WORKER_HEAP_MIB). */
  readonly heapMiB?: number
  /** A worker whose resident memory passes this during a render is killed, the render failing `out_of_memory` (default DEFAULT_COMPILER_MEMORY_MIB). */
  readonly memoryLimitBytes?: number
  /** Where the compiler's packages are installed (default the package's root); a test points it where they are not. */
  readonly installedUnder?: string
}

/** The built worker: like the WebAssembly workers (render-worker-url.ts), a process runs JavaScript, not the sources. */
const nativeWorkerScript = (): string => {
  const built = join(packageRoot, "dist", "native-worker.js")
  if (!existsSync(built)) throw new Error(`the native worker is not built (${built}): run npm run build`)
  return built
}

export class NativeEnginePool extends EnginePool {
  constructor(options: NativePoolOptions) {
    const binary = resolveNativeBinary(options.installedUnder ?? packageRoot, compilerRelease().version)
    const setup: NativeWorkerSetup = {
      compiler: { binaryPath: binary.path, workspace: templatesRoot },
      fonts: options.fonts.map(({ path, sha256, where }) => ({ path, sha256, where })),
      warmUp: options.warmUp
    }
    super({
      size: options.size,
      timeoutMs: options.timeoutMs,
      recycleAboveBytes: options.recycleAboveBytes,
      ...(options.evictionTimeoutMs === undefined ? {} : { evictionTimeoutMs: options.evictionTimeoutMs }),
      engineVersion: `typst ${TYPST_VERSION} (typst.ts ${binary.version}, native)`,
      releaseChecksum: fileSha256(binary.path),
      start: processHost({
        script: nativeWorkerScript(),
        setup,
        // Only the bundled fonts: the native compiler would add the system's (fonts/no-system-fonts.conf).
        env: { FONTCONFIG_FILE: join(packageRoot, "fonts", "no-system-fonts.conf") },
        heapMiB: options.heapMiB ?? DEFAULT_WORKER_HEAP_MIB,
        memoryLimitBytes: options.memoryLimitBytes ?? DEFAULT_COMPILER_MEMORY_MIB * 1024 * 1024
      })
    })
  }
}
