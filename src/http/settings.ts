/**
 * Every setting of a server (contract section 1), read together before the start does anything
 * else: a bad one is refused at once, in one line, rather than by whichever layer reads it first,
 * seconds later (after the database and the render workers started), once per layer that reads it.
 * The layers still read their own settings; this only reads them all first (with
 * src/shared/read-settings.ts, which the other commands use for theirs).
 */
import { Config } from "effect"
import { adminTokenConfig, keyEnvironmentConfig } from "../accounts/config.ts"
import { linkConfig, retentionConfig } from "../artifacts/config.ts"
import { dashboardConfig } from "../dashboard/config.ts"
import { databaseConfig } from "../db/config.ts"
import { documentWindowSeconds } from "../documents/config.ts"
import { rateLimitConfig } from "../entitlements/rate-limit-config.ts"
import { webDailyUnits } from "../entitlements/web-daily-config.ts"
import { connectionConfig, listenConfig } from "./config.ts"
import { idempotencyTtlSeconds } from "../idempotency/config.ts"
import { passwordHashCost } from "../members/config.ts"
import { supervisorConfig } from "../jobs/retry-policy.ts"
import { syncThresholdMs } from "../jobs/sync-threshold.ts"
import { rendererConfig } from "../render/config.ts"
import { serverKeySetting } from "../shared/server-key.ts"
import { sweepIntervalConfig } from "../sweep-interval.ts"
import { deliveryConfig, historySeconds, subscriptionConfig } from "../webhooks/config.ts"

export const serverSettings = Config.all({
  listen: listenConfig,
  connections: connectionConfig,
  database: databaseConfig,
  serverKey: serverKeySetting(Config.map(databaseConfig, (database) => database._tag === "postgres")),
  adminToken: adminTokenConfig,
  keyEnvironment: keyEnvironmentConfig,
  renderer: rendererConfig,
  supervisor: supervisorConfig,
  syncThresholdMs,
  rateLimits: rateLimitConfig,
  links: linkConfig,
  retention: retentionConfig,
  documentWindowSeconds,
  idempotencyTtlSeconds,
  sweepIntervalMs: sweepIntervalConfig,
  subscriptions: subscriptionConfig,
  deliveries: deliveryConfig,
  webhookHistorySeconds: historySeconds,
  dashboard: dashboardConfig,
  webDailyUnits,
  passwordHashCost
})
