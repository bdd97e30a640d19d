/**
 * Every service of a running Pressroom, as one layer over its edges: the migrated database, the
 * renderer, the artifact store and the server key. `PlatformLive` puts the real edges under it
 * (the HTTP server, the CLI); in-process tests put a stub renderer or storage and a test key under
 * `platformOver` instead.
 */
import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { Admission } from "./admission/admission.ts"
import { DatabaseArtifactStoreLive } from "./artifacts/database-store.ts"
import { ArtifactLinks } from "./artifacts/links.ts"
import { LocalArtifactStoreLive } from "./artifacts/local-store.ts"
import { ArtifactRepository } from "./artifacts/repository.ts"
import type { ArtifactStore } from "./artifacts/store.ts"
import { databaseConfig, dataDirConfig } from "./db/config.ts"
import { MigratedDatabaseLive } from "./db/layer.ts"
import { DocumentHistory } from "./documents/history.ts"
import { Documents } from "./documents/documents.ts"
import { DocumentStore } from "./documents/store.ts"
import type { Notifications } from "./db/notifications.ts"
import { Cursors } from "./shared/cursor.ts"
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
import { loadServerKey, makeServerKey, ServerKey } from "./shared/server-key.ts"
import { Sweeper } from "./sweeper.ts"
import { CustomTemplates } from "./templates/repository.ts"
import { DeliveryStore } from "./webhooks/delivery-store.ts"
import { Dispatcher } from "./webhooks/dispatcher.ts"
import { DeliveryHistory } from "./webhooks/history.ts"
import { Outbox } from "./webhooks/outbox.ts"
import { SubscriptionStore } from "./webhooks/store.ts"
import { WebhookSubscriptions } from "./webhooks/subscriptions.ts"

/** What the platform stands on. */
export type Edges = SqlClient.SqlClient | Notifications | RenderService | ArtifactStore | ServerKey

const Foundation = Layer.mergeAll(
  ArtifactRepository.Default,
  Ledger.Default,
  RateLimiter.Default,
  Idempotency.Default,
  CustomTemplates.Default,
  Outbox.Default,
  SubscriptionStore.Default,
  DeliveryStore.Default,
  DeliveryHistory.Default,
  JobStore.Default,
  JobSignals.Default,
  DocumentStore.Default,
  DocumentHistory.Default,
  ArtifactLinks.Default,
  Cursors.Default
)

/** The platform over `edges`, built once each (services are composed here, not by their own dependencies). */
export const platformOver = <E, R>(edges: Layer.Layer<Edges, E, R>) =>
  Layer.mergeAll(
    Jobs.Default,
    Supervisor.Default,
    Sweeper.Default,
    Dispatcher.Default,
    Admission.Default,
    JobResponses.Default,
    WebhookSubscriptions.Default
  ).pipe(
    Layer.provideMerge(Documents.Default),
    Layer.provideMerge(JobLifecycle.Default),
    // Metrics reads the renderer's worker replacements: built above the edges, it gets the one
    // renderer the jobs use rather than relying on layer memoisation to avoid a second pool.
    Layer.provideMerge(Metrics.Default),
    Layer.provideMerge(Foundation),
    Layer.provideMerge(edges)
  )

/**
 * Where artifact bytes live: in the database on PostgreSQL, which every process of a cluster
 * shares, and in files under the data folder when embedded, where there is only one process.
 */
export const ArtifactStoreLive = Layer.unwrapEffect(
  Effect.map(databaseConfig, (database) => (database._tag === "postgres" ? DatabaseArtifactStoreLive : LocalArtifactStoreLive))
)

/**
 * The server key (contract section 1): `PRESSROOM_SERVER_KEY`, required with DATABASE_URL because
 * every process of a cluster must share it; embedded, generated once into the data folder.
 */
export const ServerKeyLive = Layer.effect(
  ServerKey,
  Effect.gen(function* () {
    const database = yield* databaseConfig
    const dataDir = yield* dataDirConfig
    return makeServerKey(yield* loadServerKey({ clustered: database._tag === "postgres", dataDir }))
  })
)

/**
 * The real edges: the configured database (migrated), the render pool, the artifact store, and
 * the server key, which is had first so that a start it refuses touches neither the database nor
 * the renderer.
 */
export const EdgesLive = Layer.mergeAll(RenderService.Default, ArtifactStoreLive).pipe(
  Layer.provideMerge(MigratedDatabaseLive),
  Layer.provideMerge(ServerKeyLive)
)

/** The edges a command that signs nothing needs (`pressroom audit`): no server key, so none is required of it. */
export const UnkeyedEdgesLive = Layer.mergeAll(RenderService.Default, ArtifactStoreLive).pipe(Layer.provideMerge(MigratedDatabaseLive))

export const PlatformLive = platformOver(EdgesLive)
