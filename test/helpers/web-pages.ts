/** What the browser tests of the web channel share beyond test/helpers/browser.ts. */
import { requestJson } from "./api.ts"
import { until } from "./lifecycle.ts"
import type { RunningServer } from "./server.ts"

/** Waits until the delivery of `jobId`'s event to the account's only subscription has an attempt recorded (read through the API). */
export const awaitRecordedAttempt = (server: RunningServer, key: string, jobId: string) =>
  until(`an attempt recorded for job ${jobId}`, async () => {
    const listed = await requestJson(server, "GET", "/api/v2/webhooks", { token: key })
    const [subscription] = listed.body.subscriptions as Array<{ id: string }>
    if (!subscription) return undefined
    const deliveries = await requestJson(server, "GET", `/api/v2/webhooks/${subscription.id}/deliveries`, { token: key })
    return (deliveries.body.deliveries as Array<{ jobId: string; attempts: Array<unknown> }>).some(
      (delivery) => delivery.jobId === jobId && delivery.attempts.length > 0
    )
  })
