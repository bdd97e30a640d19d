/**
 * The sweep (contract sections 1 and 6): every `PRESSROOM_SWEEP_INTERVAL_MS`, artifacts past their
 * `expiresAt` become `expired` and their bytes are removed unless another available artifact
 * shares them (src/artifacts/shared-bytes.ts), expired idempotency records are deleted, documents past their retention are deleted, and webhook deliveries and outbox events
 * past the history period are removed. Every process sweeps; `skip locked` and idempotent removals make that safe. An
 * artifact is marked before its bytes go, so a crash between the two leaves at worst a file that
 * no row names, never a row whose bytes are missing while it claims to be available.
 */
import { Duration, Effect } from "effect"
import { ArtifactRepository } from "./artifacts/repository.ts"
import { unreferencedBytesRemover } from "./artifacts/shared-bytes.ts"
import { Documents } from "./documents/documents.ts"
import { Idempotency } from "./idempotency/idempotency.ts"
import { sweepIntervalConfig } from "./sweep-interval.ts"
import { historySeconds } from "./webhooks/config.ts"
import { DeliveryHistory } from "./webhooks/history.ts"

export class Sweeper extends Effect.Service<Sweeper>()("pressroom/Sweeper", {
  scoped: Effect.gen(function* () {
    const interval = yield* sweepIntervalConfig
    const artifacts = yield* ArtifactRepository
    const idempotency = yield* Idempotency
    const removeUnreferenced = yield* unreferencedBytesRemover
    const documents = yield* Documents
    const deliveryHistory = yield* DeliveryHistory
    const webhookHistorySeconds = yield* historySeconds

    const sweep = Effect.gen(function* () {
      const expired = yield* artifacts.expireDue
      // After the expiry is committed (a statement of its own), as shared-bytes.ts requires.
      yield* removeUnreferenced(expired).pipe(Effect.catchAll((error) => Effect.logWarning("expired bytes not removed", error)))
      yield* idempotency.purgeExpired
      yield* documents.sweep
      yield* deliveryHistory.sweep(webhookHistorySeconds)
    })

    yield* sweep.pipe(
      Effect.catchAllCause((cause) => Effect.logError("sweep failed", cause)),
      Effect.zipRight(Effect.sleep(Duration.millis(interval))),
      Effect.forever,
      Effect.forkScoped
    )
    return { sweep } as const
  })
}) {}
