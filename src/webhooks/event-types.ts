/** The event types (specification section 6), which a subscription lists 1 to 3 of. */
export const EVENT_TYPES = ["job.succeeded", "job.failed", "job.cancelled"] as const
export type EventType = (typeof EVENT_TYPES)[number]
