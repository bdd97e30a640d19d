/**
 * The supervisor's timing. The lease is how long a claim stays valid without a heartbeat; a
 * process that stops heartbeating (killed, paused, partitioned) loses its jobs to the rescuer
 * after at most this long. Not in the contract's table: operators rarely need them, tests do.
 */
import { Config } from "effect"
import { rendererConfig } from "../render/config.ts"

export const supervisorConfig = Config.all({
  concurrency: Config.map(rendererConfig, (renderer) => renderer.workers),
  renderTimeoutMs: Config.map(rendererConfig, (renderer) => renderer.timeoutMs),
  leaseMs: Config.integer("PRESSROOM_JOB_LEASE_MS").pipe(Config.withDefault(15_000)),
  /** How long SIGTERM waits for running renders before handing their jobs back. */
  shutdownGraceMs: Config.integer("PRESSROOM_SHUTDOWN_GRACE_MS").pipe(Config.withDefault(20_000))
})

/** At most this many attempts of a job whose failures are transient (contract section 6). */
export const MAX_ATTEMPTS = 3

/** Backoff before attempt n+1 after a transient failure of attempt n: 1 s, 4 s, … */
export const retryDelayMs = (attempt: number) => 1000 * 4 ** (attempt - 1)
