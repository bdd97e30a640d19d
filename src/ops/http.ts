/** Health, readiness, metrics and the OpenAPI document. */
import { HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { latestMigrationId, migrationsApplied } from "../db/migrator.ts"
import { RenderService } from "../render/service.ts"
import { PressroomApi } from "../http/api.ts"
import { Metrics } from "./metrics.ts"

// Built once, when the server loads its handlers (not in the API definition, which clients import too).
const openApiDocument = OpenApi.fromApi(PressroomApi)

export const OpsHandlers = HttpApiBuilder.group(PressroomApi, "ops", (handlers) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const metrics = yield* Metrics
    const latestMigration = yield* latestMigrationId
    // The renderer is warm once its layer is built: readiness only has to know it exists.
    yield* RenderService
    return handlers
      .handle("healthz", () => Effect.succeed({ status: "ok" as const }))
      .handle("readyz", () =>
        Effect.gen(function* () {
          const database = yield* sql`select 1`.pipe(
            Effect.as(true),
            Effect.orElseSucceed(() => false)
          )
          const migrations = database ? yield* migrationsApplied(latestMigration).pipe(Effect.orElseSucceed(() => false)) : false
          const ready = database && migrations
          return HttpServerResponse.unsafeJson(
            { status: ready ? "ready" : "not_ready", checks: { database, migrations, renderer: true } },
            { status: ready ? 200 : 503, headers: ready ? {} : { "retry-after": "5" } }
          )
        }).pipe(Effect.provideService(SqlClient.SqlClient, sql))
      )
      .handle("metrics", () => Effect.map(metrics.text, (text) => HttpServerResponse.text(text, { contentType: metrics.contentType })))
      .handle("openapi", () => Effect.succeed(HttpServerResponse.unsafeJson(openApiDocument)))
  })
)
