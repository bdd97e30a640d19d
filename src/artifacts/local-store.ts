/**
 * The embedded server's artifact store: files under `PRESSROOM_DATA_DIR/artifacts`. A write goes
 * to a temporary file that is flushed and then renamed over the final name, so a crash leaves
 * either the whole PDF or nothing. On PostgreSQL the bytes are in the database instead
 * (database-store.ts), which every process of a cluster shares.
 */
import { Effect, Layer } from "effect"
import { mkdir, open, readFile, rename, rm } from "node:fs/promises"
import { join } from "node:path"
import { randomUUID } from "node:crypto"
import { dataDirConfig } from "../db/config.ts"
import { ArtifactStore, StorageUnavailable } from "./store.ts"

const SAFE_KEY = /^[A-Za-z0-9._-]+$/

export const makeLocalStore = (root: string) => {
  const pathOf = (key: string) => {
    if (!SAFE_KEY.test(key)) throw new Error(`unsafe storage key ${key}`)
    return join(root, key)
  }
  const attempt = <A>(what: string, run: () => Promise<A>) =>
    Effect.tryPromise({ try: run, catch: (cause) => new StorageUnavailable({ message: `${what} failed: ${(cause as Error).message}` }) })
  return ArtifactStore.of({
    put: (key, bytes) =>
      attempt("artifact write", async () => {
        await mkdir(root, { recursive: true })
        const temporary = join(root, `.${key}.${randomUUID()}.tmp`)
        const file = await open(temporary, "wx")
        try {
          await file.writeFile(bytes)
          await file.sync()
        } finally {
          await file.close()
        }
        await rename(temporary, pathOf(key))
      }),
    get: (key) => attempt("artifact read", async () => new Uint8Array(await readFile(pathOf(key)))),
    remove: (key) => attempt("artifact removal", () => rm(pathOf(key), { force: true }))
  })
}

export const LocalArtifactStoreLive = Layer.effect(
  ArtifactStore,
  Effect.map(dataDirConfig, (dataDir) => makeLocalStore(join(dataDir, "artifacts")))
)
