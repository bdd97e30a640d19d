/**
 * The compiler pool when its workers cannot start (a damaged install): it says so to every caller
 * and does not respawn workers that would die the same way. The file itself must end: a pool
 * respawning forever would keep this process alive until tap's timeout.
 */
import t from "tap"
import { readBundle } from "../../src/render/engine/bundle.ts"
import { CompileFailure } from "../../src/render/engine/engine.ts"
import { WasmEnginePool } from "../../src/render/engine/wasm-pool.ts"

const job = {
  markdown: "# x",
  templateId: "clean",
  options: { pageNumbers: false, bodyTextColor: null, headingTextColor: null, creativeAccent: "slate" as const },
  locale: { code: "en", lang: "en", region: null, dir: "ltr" }
}

t.test("workers that cannot start fail every job as crashed, once", async (t) => {
  // A bundle file whose text is not a string makes the worker's start-up throw inside WASM.
  const broken = [...readBundle(), { path: "/broken.typ", text: 42 as unknown as string }]
  const pool = new WasmEnginePool({ size: 2, timeoutMs: 5_000, fonts: [], bundle: broken })
  const queued = pool.typeset(job)
  await t.rejects(pool.warm(), "warm-up reports the failure")
  const error = await queued.then(() => undefined, (e: unknown) => e)
  t.type(error, CompileFailure, "the job queued before start-up fails")
  t.equal((error as CompileFailure).reason, "crashed")
  t.match((error as CompileFailure).details.join(" "), /no compiler worker could start/)
  const later = await pool.typeset(job).then(() => undefined, (e: unknown) => e)
  t.type(later, CompileFailure, "a later job fails at once")
  t.match((later as CompileFailure).details.join(" "), /no compiler worker could start/)
  await pool.close()
})
