/**
 * The platform a server assembles, in this test process: over the stub renderer (whose gated
 * renders end when the test says), a local artifact folder and `database`, with `config` as its
 * settings. For tests of the services where no process boundary is under test.
 */
import { type ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeLocalStore } from "../../src/artifacts/local-store.ts"
import { ArtifactStore } from "../../src/artifacts/store.ts"
import { platformOver } from "../../src/platform.ts"
import type { TestDatabase } from "./database.ts"
import { TestServerKey } from "./server-key.ts"
import { stubRenderer } from "./stub-renderer.ts"
import type { TestContext } from "./tap.ts"

/** The platform's layer and its stub renderer. */
export const stubPlatform = async (database: TestDatabase, config: ConfigProvider.ConfigProvider) => {
  const stub = await Effect.runPromise(stubRenderer)
  const store = Layer.succeed(ArtifactStore, makeLocalStore(mkdtempSync(join(tmpdir(), "pressroom-artifacts-"))))
  const layer = platformOver(Layer.mergeAll(stub.layer, store, database.layer, TestServerKey)).pipe(
    Layer.provide(Layer.setConfigProvider(config))
  )
  return { layer, stub }
}

/** A runtime of `layer`, disposed when the test ends, and how to run an effect in it. */
export const runtimeOf = <R, E>(t: TestContext, layer: Layer.Layer<R, E>) => {
  const runtime = ManagedRuntime.make(layer)
  t.teardown(() => runtime.dispose())
  return <A, E2>(effect: Effect.Effect<A, E2, R>): Promise<A> => runtime.runPromise(effect)
}
