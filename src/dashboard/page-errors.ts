/**
 * A service's refusal as a dashboard page: its status and its message (server-written, and
 * escaped like any text), in the dashboard's frame. Pages that can say more (a form shown again
 * with its error) catch what they can first.
 */
import { Effect } from "effect"
import { isPressroomError, type PressroomError, publishingError } from "../shared/errors.ts"
import { htmlResponse } from "./responses.ts"
import { statusPage } from "./status-page.ts"

/** The status page of a refusal. */
export const refusalPage = (error: PressroomError) => {
  const published = publishingError(error)
  return htmlResponse(statusPage(published.httpStatus, published.message), published.httpStatus)
}

/** `page` with every `PressroomError` it may fail with answered as a status page. */
export const withRefusalPages = <A, E, R>(page: Effect.Effect<A, E, R>) =>
  Effect.catchIf(page, isPressroomError, (error) => Effect.succeed(refusalPage(error as PressroomError)))
