/**
 * The native engine's compiler worker: one native compiler (native-compiler.ts) in a child process
 * of the pool (process-host.ts), serving jobs as every worker does (worker-loop.ts). The pool
 * starts its build, dist/native-worker.js, and sends its setup as the first message.
 */
import { checkFontFile, FontSetError } from "../fonts/font-file.ts"
import { type NativeCompilerSetup, startNativeCompiler } from "./native-compiler.ts"
import { watchParent } from "./parent-watch.ts"
import { describeTrap, keepCompilerConsole } from "./trap-report.ts"
import { convertHere } from "./convert.ts"
import type { FontFile } from "../fonts/font-file.ts"
import { type RenderWorkerReply, serveJobs } from "./worker-loop.ts"

export interface NativeWorkerSetup {
  readonly compiler: Omit<NativeCompilerSetup, "fontPaths">
  readonly fonts: ReadonlyArray<FontFile>
  readonly warmUp: boolean
}

// The worker dies with the pool's process: without its channel it would serve no one. A compile
// holds this thread, so a thread of its own watches for the parent's end meanwhile (parent-watch.ts).
process.on("disconnect", () => process.exit(0))
watchParent()
// A terminal's Ctrl-C or a service manager's SIGTERM reaches the whole process group: the pool
// decides when its workers end (it kills them), so that a graceful shutdown lets renders finish.
process.on("SIGINT", () => {})
process.on("SIGTERM", () => {})
keepCompilerConsole()

const setup = await new Promise<NativeWorkerSetup>((resolve) =>
  process.once("message", (message: { readonly setup: NativeWorkerSetup }) => resolve(message.setup))
)
const send = (reply: RenderWorkerReply, sent?: () => void) => process.send!(reply, undefined, {}, () => sent?.())
try {
  // The compiler reads the font files itself: check them against the manifest first, so that a
  // file changed since the server started stops this worker's start rather than changing a PDF
  // under an unchanged fontSetSha256.
  for (const font of setup.fonts) checkFontFile(font)
  const backend = startNativeCompiler({ ...setup.compiler, fontPaths: setup.fonts.map((font) => font.path) })
  serveJobs({ send, onJob: (handle) => process.on("message", handle as (message: unknown) => void) }, convertHere, backend, {
    warmUp: setup.warmUp,
    ready: { ready: true }
  })
} catch (error) {
  // Only the kind of a compiler error: its message could quote a document (trap-report.ts).
  const startFailed = error instanceof FontSetError ? error.message : describeTrap(error)
  process.send!({ startFailed } satisfies RenderWorkerReply, () => process.exit(1))
}
