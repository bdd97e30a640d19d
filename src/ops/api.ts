/** Operational endpoints, without authentication (contract section 1): health, readiness, metrics, the OpenAPI document. */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export const Health = Schema.Struct({ status: Schema.Literal("ok") })

export const Readiness = Schema.Struct({
  status: Schema.Literal("ready", "not_ready"),
  checks: Schema.Struct({ database: Schema.Boolean, migrations: Schema.Boolean, renderer: Schema.Boolean })
})

export class OpsApi extends HttpApiGroup.make("ops")
  .add(HttpApiEndpoint.get("healthz", "/healthz").addSuccess(Health))
  .add(
    HttpApiEndpoint.get("readyz", "/readyz")
      .addSuccess(Readiness)
      .addError(
        Readiness.annotations(HttpApiSchema.annotations({ status: 503, description: "Not ready: the body says which check failed." }))
      )
  )
  .add(
    HttpApiEndpoint.get("metrics", "/metrics").addSuccess(
      HttpApiSchema.Text({ contentType: "text/plain; version=0.0.4" }).annotations({ description: "Prometheus text format" })
    )
  )
  .add(
    HttpApiEndpoint.get("openapi", "/api/v2/openapi.json").addSuccess(
      Schema.Object.annotations({ description: "This document (OpenAPI 3.1)" })
    )
  )
  .annotate(OpenApi.Title, "Operations") {}
