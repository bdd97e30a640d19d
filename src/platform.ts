/**
 * Every service of a running Pressroom over one migrated database, for the HTTP server and for
 * anything else that runs the platform in process (the CLI, tests).
 */
import { Layer } from "effect"
import { ArtifactRepository } from "./artifacts/repository.ts"
import { LocalArtifactStoreLive } from "./artifacts/local-store.ts"
import { MigratedDatabaseLive } from "./db/layer.ts"
import { Ledger } from "./entitlements/ledger.ts"
import { RateLimiter } from "./entitlements/rate-limiter.ts"
import { Metrics } from "./http/metrics.ts"
import { Idempotency } from "./idempotency/idempotency.ts"
import { JobStore } from "./jobs/job-store.ts"
import { Jobs } from "./jobs/jobs.ts"
import { JobLifecycle } from "./jobs/lifecycle.ts"
import { JobSignals } from "./jobs/signals.ts"
import { Supervisor } from "./jobs/supervisor.ts"
import { RenderService } from "./render/service.ts"
import { Sweeper } from "./sweeper.ts"
import { CustomTemplates } from "./templates/repository.ts"
import { Outbox } from "./webhooks/outbox.ts"

const FoundationLive = Layer.mergeAll(
  RenderService.Default,
  LocalArtifactStoreLive,
  ArtifactRepository.Default,
  Ledger.Default,
  RateLimiter.Default,
  Idempotency.Default,
  CustomTemplates.Default,
  Outbox.Default,
  JobStore.Default,
  JobSignals.Default
)

export const PlatformLive = Layer.mergeAll(Jobs.Default, Supervisor.Default, Sweeper.Default).pipe(
  Layer.provideMerge(JobLifecycle.Default),
  // Metrics reads the renderer's worker replacements: built above the foundation, it gets the
  // one renderer the jobs use rather than relying on layer memoisation to avoid a second pool.
  Layer.provideMerge(Metrics.Default),
  Layer.provideMerge(FoundationLive),
  Layer.provideMerge(MigratedDatabaseLive)
)
