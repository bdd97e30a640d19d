/**
 * Every service of a running Pressroom, as one layer over its edges: the migrated database, the
 * renderer and the artifact store. `PlatformLive` puts the real edges under it (the HTTP server,
 * the CLI); in-process tests put a stub renderer or storage under `platformOver` instead.
 */
import type { SqlClient } from "@effect/sql"
import { Layer } from "effect"
import { Admission } from "./admission/admission.ts"
import { LocalArtifactStoreLive } from "./artifacts/local-store.ts"
import { ArtifactLinks } from "./artifacts/links.ts"
import { ArtifactRepository } from "./artifacts/repository.ts"
import type { ArtifactStore } from "./artifacts/store.ts"
import { MigratedDatabaseLive } from "./db/layer.ts"
import { Documents } from "./documents/documents.ts"
import { DocumentStore } from "./documents/store.ts"
import type { Notifications } from "./db/notifications.ts"
import { Ledger } from "./entitlements/ledger.ts"
import { RateLimiter } from "./entitlements/rate-limiter.ts"
import { Idempotency } from "./idempotency/idempotency.ts"
import { JobStore } from "./jobs/job-store.ts"
import { JobResponses } from "./jobs/job-response.ts"
import { Jobs } from "./jobs/jobs.ts"
import { JobLifecycle } from "./jobs/lifecycle.ts"
import { JobSignals } from "./jobs/signals.ts"
import { Supervisor } from "./jobs/supervisor.ts"
import { Metrics } from "./ops/metrics.ts"
import { RenderService } from "./render/service.ts"
import { Sweeper } from "./sweeper.ts"
import { CustomTemplates } from "./templates/repository.ts"
import { Outbox } from "./webhooks/outbox.ts"

/** What the platform stands on. */
export type Edges = SqlClient.SqlClient | Notifications | RenderService | ArtifactStore

const Foundation = Layer.mergeAll(
  ArtifactRepository.Default,
  Ledger.Default,
  RateLimiter.Default,
  Idempotency.Default,
  CustomTemplates.Default,
  Outbox.Default,
  JobStore.Default,
  JobSignals.Default,
  DocumentStore.Default,
  ArtifactLinks.Default
)

/** The platform over `edges`, built once each (services are composed here, not by their own dependencies). */
export const platformOver = <E, R>(edges: Layer.Layer<Edges, E, R>) =>
  Layer.mergeAll(Jobs.Default, Supervisor.Default, Sweeper.Default, Admission.Default, JobResponses.Default).pipe(
    Layer.provideMerge(Documents.Default),
    Layer.provideMerge(JobLifecycle.Default),
    // Metrics reads the renderer's worker replacements: built above the edges, it gets the one
    // renderer the jobs use rather than relying on layer memoisation to avoid a second pool.
    Layer.provideMerge(Metrics.Default),
    Layer.provideMerge(Foundation),
    Layer.provideMerge(edges)
  )

/** The real edges: the configured database (migrated), the render pool, local artifact files. */
export const EdgesLive = Layer.mergeAll(RenderService.Default, LocalArtifactStoreLive).pipe(Layer.provideMerge(MigratedDatabaseLive))

export const PlatformLive = platformOver(EdgesLive)
