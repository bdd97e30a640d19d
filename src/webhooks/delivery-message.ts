/**
 * What one delivery attempt sends (specification section 6, contract section 10): the body, the
 * same on every attempt, and the Standard Webhooks headers, signed by the `standardwebhooks`
 * package with every secret that signs now (space-separated during a rotation's overlap) at a
 * fresh timestamp.
 */
import { Webhook } from "standardwebhooks"

/** The delivery body's `apiVersion` (contract section 10). */
export const API_VERSION = "2026-07-22"

export const deliveryBody = (delivery: { id: string; eventType: string; eventCreatedAt: Date; data: unknown }): string =>
  JSON.stringify({
    id: delivery.id,
    type: delivery.eventType,
    apiVersion: API_VERSION,
    createdAt: delivery.eventCreatedAt.toISOString(),
    data: delivery.data
  })

export const deliveryHeaders = (id: string, body: string, secrets: ReadonlyArray<string>, now: Date): Record<string, string> => ({
  "content-type": "application/json",
  "user-agent": "Pressroom-Webhooks/1",
  "webhook-id": id,
  // Unix seconds: the signature covers the same rounded instant the header shows.
  "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
  "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(id, now, body)).join(" ")
})
