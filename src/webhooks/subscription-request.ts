/**
 * The content checks of a subscription request (contract section 3: 422), after the request
 * schema of api.ts has checked its shape (400: unknown members, types, the endpoint's length, the
 * number and uniqueness of event types, the description's length).
 */
import { Effect } from "effect"
import { InvalidRequest } from "../shared/errors.ts"
import { decodeContent } from "../shared/request-values.ts"
import { excerpt, StoredText } from "../shared/text.ts"
import { EVENT_TYPES } from "./event-types.ts"
import type { SubscriptionDefinition } from "./subscription.ts"

/**
 * An https URL as sent. White space and control characters are refused rather than dropped, as
 * the URL parser would silently drop some of them, and the subscription keeps what was sent.
 */
const isHttpsUrl = (text: string) => !/[\s\x00-\x1f\x7f]/.test(text) && URL.canParse(text) && new URL(text).protocol === "https:"

export const checkSubscription = (request: {
  readonly endpoint: string
  readonly eventTypes: ReadonlyArray<string>
  readonly description?: string | null | undefined
}): Effect.Effect<SubscriptionDefinition, InvalidRequest> => {
  if (!isHttpsUrl(request.endpoint)) {
    return Effect.fail(InvalidRequest.unprocessable("endpoint: must be a valid https:// URL", "endpoint"))
  }
  const unknown = request.eventTypes.find((type) => !(EVENT_TYPES as ReadonlyArray<string>).includes(type))
  if (unknown !== undefined) {
    return Effect.fail(
      InvalidRequest.unprocessable(
        `eventTypes: unknown event type '${excerpt(unknown, 40)}' (known: ${EVENT_TYPES.join(", ")})`,
        "eventTypes"
      )
    )
  }
  const description = request.description ?? null
  return Effect.map(description === null ? Effect.succeed(null) : decodeContent(StoredText, description, "description"), (description) => ({
    endpoint: request.endpoint,
    eventTypes: request.eventTypes,
    description
  }))
}
