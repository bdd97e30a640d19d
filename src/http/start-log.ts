/**
 * What a started server says about itself, so that an operator need not guess: where it listens
 * and where its API reference is, whether the admin API is on, which database it uses (never the
 * connection string's credentials) and how it renders.
 */
import { HttpServer } from "@effect/platform"
import { Effect, Layer, Option, Redacted } from "effect"
import { adminTokenConfig } from "../accounts/config.ts"
import { type DatabaseConfig, databaseConfig, dataDirConfig } from "../db/config.ts"
import { rendererConfig } from "../render/config.ts"

/** A PostgreSQL URL as host, port and database only; a connection string that is not a URL is not quoted at all. */
const describeDatabase = (database: DatabaseConfig): string => {
  if (database._tag === "embedded") return `PGlite in ${database.dataDir}`
  const text = Redacted.value(database.url)
  if (!URL.canParse(text)) return "PostgreSQL (DATABASE_URL)"
  const url = new URL(text)
  return `PostgreSQL at ${url.host}${url.pathname === "/" ? "" : url.pathname}`
}

/** The start's lines, the first as @effect/platform's own (`Listening on <url>`), which scripts wait for. */
const startLines = (address: string) =>
  Effect.gen(function* () {
    const adminToken = yield* adminTokenConfig
    const database = yield* databaseConfig
    const dataDir = yield* dataDirConfig
    const { engine, workers } = yield* rendererConfig
    return [
      `Listening on ${address}`,
      `API reference: ${address}/docs`,
      Option.isSome(adminToken)
        ? "Admin API: on (/admin/, PRESSROOM_ADMIN_TOKEN)"
        : "Admin API: off (set PRESSROOM_ADMIN_TOKEN to turn it on)",
      `Database: ${describeDatabase(database)}; data folder ${dataDir}`,
      `Renderer: ${engine} engine, ${workers} worker${workers === 1 ? "" : "s"}`
    ]
  })

/** `layer`, and once its server listens, the start log. */
export const withStartLog = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  Layer.effectDiscard(
    HttpServer.addressFormattedWith((address) =>
      Effect.flatMap(startLines(address), (lines) =>
        Effect.all(
          lines.map((line) => Effect.log(line)),
          { discard: true }
        )
      )
    )
  ).pipe(Layer.provideMerge(layer))
