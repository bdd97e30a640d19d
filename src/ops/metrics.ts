/**
 * Prometheus metrics (`GET /metrics`): requests by route and status, render durations, renders
 * reused by their manifest, compiler
 * workers replaced (counted by this process's pool), webhook delivery attempts by outcome, and, read
 * from the database at scrape time so that every process reports the shared truth, jobs by status,
 * queue depth, units reserved and committed, and webhook deliveries by status and those due.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Runtime, Schema } from "effect"
import client from "prom-client"
import { noWorkerReplacements } from "../render/engine/engine.ts"
import { RenderService } from "../render/service.ts"

export class Metrics extends Effect.Service<Metrics>()("pressroom/Metrics", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const renderService = yield* RenderService
    const runtime = yield* Effect.runtime<never>()
    const registry = new client.Registry()
    client.collectDefaultMetrics({ register: registry, prefix: "pressroom_process_" })

    const requests = new client.Counter({
      name: "pressroom_http_requests_total",
      help: "HTTP requests by route and status",
      labelNames: ["method", "route", "status"] as const,
      registers: [registry]
    })
    const renderSeconds = new client.Histogram({
      name: "pressroom_render_duration_seconds",
      help: "Wall-clock time of one render attempt, by outcome",
      labelNames: ["outcome"] as const,
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32],
      registers: [registry]
    })
    const reuses = new client.Counter({
      name: "pressroom_render_reuses_total",
      help: "Jobs of this process that succeeded over the bytes of an earlier render of the same manifest and owner, without rendering",
      registers: [registry]
    })
    const deliveryAttemptSeconds = new client.Histogram({
      name: "pressroom_webhook_delivery_attempt_duration_seconds",
      help: "Wall-clock time of one webhook delivery attempt by this process, by outcome (delivered, failed, refused by the address guard)",
      labelNames: ["outcome"] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry]
    })
    for (const outcome of ["delivered", "failed", "refused"]) deliveryAttemptSeconds.zero({ outcome })
    /** Runs a count read at scrape time: its rows, decoded by `Result`. */
    const query = <A, I>(Result: Schema.Schema<A, I>, statement: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
      Runtime.runPromise(runtime)(Effect.orDie(SqlSchema.findAll({ Request: Schema.Void, Result, execute: () => statement })(undefined)))
    const Count = Schema.Struct({ n: Schema.Int })
    const CountByStatus = Schema.Struct({ status: Schema.String, n: Schema.Int })

    new client.Gauge({
      name: "pressroom_jobs",
      help: "Jobs by status",
      labelNames: ["status"] as const,
      registers: [registry],
      async collect() {
        this.reset()
        const rows = await query(CountByStatus, sql`select status, count(*)::int as n from jobs group by status`)
        for (const row of rows) this.set({ status: row.status }, row.n)
      }
    })
    new client.Gauge({
      name: "pressroom_queue_depth",
      help: "Jobs waiting to be claimed",
      registers: [registry],
      async collect() {
        const rows = await query(Count, sql`select count(*)::int as n from jobs where status = 'queued'`)
        this.set(rows[0]?.n ?? 0)
      }
    })
    new client.Gauge({
      name: "pressroom_units",
      help: "Publication units by state (reserved, committed, released)",
      labelNames: ["state"] as const,
      registers: [registry],
      async collect() {
        this.reset()
        const rows = await query(
          Schema.Struct({ state: Schema.String, n: Schema.Int }),
          sql`select state, coalesce(sum(units), 0)::int as n from unit_reservations group by state`
        )
        for (const state of ["reserved", "committed", "released"]) {
          this.set({ state }, rows.find((row) => row.state === state)?.n ?? 0)
        }
      }
    })

    new client.Gauge({
      name: "pressroom_webhook_deliveries",
      help: "Webhook deliveries kept in the history, by status (pending, delivered, failed, dropped)",
      labelNames: ["status"] as const,
      registers: [registry],
      async collect() {
        this.reset()
        const rows = await query(CountByStatus, sql`select status, count(*)::int as n from webhook_deliveries group by status`)
        for (const status of ["pending", "delivered", "failed", "dropped"]) {
          this.set({ status }, rows.find((row) => row.status === status)?.n ?? 0)
        }
      }
    })
    new client.Gauge({
      name: "pressroom_webhook_delivery_queue",
      help: "Pending webhook deliveries due now (an attempt under way included)",
      registers: [registry],
      async collect() {
        const rows = await query(
          Count,
          sql`select count(*)::int as n from webhook_deliveries where status = 'pending' and next_attempt_at <= now()`
        )
        this.set(rows[0]?.n ?? 0)
      }
    })

    new client.Counter({
      name: "pressroom_render_worker_replacements_total",
      help: `Compiler workers of this process replaced, by reason (${Object.keys(noWorkerReplacements).join(", ")})`,
      labelNames: ["reason"] as const,
      registers: [registry],
      collect() {
        // The pool counts; a counter cannot be set, so each scrape starts it from zero.
        this.reset()
        for (const [reason, n] of Object.entries(renderService.workerReplacements())) this.inc({ reason }, n)
      }
    })

    return {
      recordRequest: (method: string, route: string, status: number) => requests.inc({ method, route, status: String(status) }),
      recordRender: (outcome: "succeeded" | "failed", seconds: number) => renderSeconds.observe({ outcome }, seconds),
      recordReuse: () => reuses.inc(),
      recordDeliveryAttempt: (outcome: "delivered" | "failed" | "refused", seconds: number) =>
        deliveryAttemptSeconds.observe({ outcome }, seconds),
      text: Effect.promise(() => registry.metrics()),
      contentType: registry.contentType
    } as const
  })
}) {}
