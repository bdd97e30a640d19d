/** The event types (specification section 6), which a subscription lists 1 to 3 of. */
import type { Channel } from "../render/provenance.ts"

export const EVENT_TYPES = ["job.succeeded", "job.failed", "job.cancelled"] as const
export type EventType = (typeof EVENT_TYPES)[number]

/**
 * The channels whose jobs send events (contract section 10): every job of the document lifecycle,
 * whatever its channel. One-call conversions and renders outside the service send none.
 */
export const EVENT_CHANNELS = ["rest_v2", "web", "mcp_v2"] as const satisfies ReadonlyArray<Channel>
