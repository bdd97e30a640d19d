/**
 * `pressroom/client`: a typed client of the Pressroom HTTP API, derived from the API definition the
 * server validates with. `PressroomClient` for Promises, `makeEffectClient` for Effect. It imports
 * schemas and data only: no renderer, fonts, WebAssembly or database code (ARCHITECTURE.md).
 */
export {
  type ClientFailure,
  type ClientOptions,
  type EffectClient,
  InvalidArgument,
  makeEffectClient,
  type Method
} from "./effect-client.ts"
export {
  ArtifactExpiredError,
  ArtifactUnavailableError,
  ConflictError,
  ConnectionError,
  ForbiddenError,
  IdempotencyConflictError,
  InternalServerError,
  InvalidRequestError,
  InvalidStateTransitionError,
  JobCancelledError,
  NotFoundError,
  PressroomError,
  QuotaExhaustedError,
  RateLimitedError,
  RenderingFailedError,
  ReservationConflictError,
  ResponseError,
  ServiceUnavailableError,
  UnauthorizedError
} from "./errors.ts"
export { PressroomClient, type PromiseClient } from "./promise-client.ts"
export type { RetryOptions } from "./retry.ts"
export { PublishedError, type PublishingError } from "../shared/errors.ts"
