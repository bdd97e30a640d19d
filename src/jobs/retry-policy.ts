/**
 * The retry policy of jobs (contract section 6), in one place: a job whose attempt fails for a
 * transient reason (its worker crashed, storage was unavailable, or its holder vanished and its
 * lease lapsed) is tried again after a backoff, up to `MAX_ATTEMPTS` attempts in all. The
 * supervisor, the rescuer and v1's wait read it here.
 *
 * A lapsed lease backs off like any other transient failure: the holder may have died of the
 * document itself (an out-of-memory kill), and taking it up again at once would let one document
 * take down process after process.
 */
import { Config } from "effect"
import { rendererConfig } from "../render/config.ts"

/** At most this many attempts of a job whose failures are transient. */
export const MAX_ATTEMPTS = 3

/** The wait before attempt `attempt` (2, 3, …): 1 s before the second, 4 s before the third. */
export const delayBeforeAttempt = (attempt: number): number => 1000 * 4 ** (attempt - 2)

/** Whether a job whose attempt `attempt` failed transiently may be tried again. */
export const mayRetry = (attempt: number): boolean => attempt < MAX_ATTEMPTS

/**
 * The longest a job can take from admission to its end when nothing is wrong with the service:
 * every attempt running to the render deadline, with every backoff between them, and `slack` for
 * queueing and storage.
 */
export const worstCaseMs = (renderTimeoutMs: number, slackMs: number): number => {
  let total = slackMs
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) total += renderTimeoutMs + (attempt > 1 ? delayBeforeAttempt(attempt) : 0)
  return total
}

/**
 * The supervisor's timing. The lease is how long a claim stays valid without a heartbeat; a
 * process that stops heartbeating (killed, paused, partitioned) loses its jobs to the rescuer
 * after at most this long. Not in the contract's table: operators rarely need them, tests do.
 */
export const supervisorConfig = Config.all({
  concurrency: Config.map(rendererConfig, (renderer) => renderer.workers),
  renderTimeoutMs: Config.map(rendererConfig, (renderer) => renderer.timeoutMs),
  // A heartbeat every third of the lease: below a few hundred milliseconds it would be most of the work.
  leaseMs: Config.integer("PRESSROOM_JOB_LEASE_MS").pipe(
    Config.withDefault(15_000),
    Config.validate({ message: "PRESSROOM_JOB_LEASE_MS must be at least 300", validation: (n) => n >= 300 })
  ),
  /** How long SIGTERM waits for running renders before handing their jobs back. */
  shutdownGraceMs: Config.integer("PRESSROOM_SHUTDOWN_GRACE_MS").pipe(
    Config.withDefault(20_000),
    Config.validate({ message: "PRESSROOM_SHUTDOWN_GRACE_MS must be 0 or more", validation: (n) => n >= 0 })
  )
})
