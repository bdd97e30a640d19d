/**
 * How a job that did not succeed says why (`job.error`, specification 2.8): these errors end a job
 * rather than a request, so they are values in their published form, not failures.
 */
import { categoryOf, type ErrorCode, InternalError, publishingError, type PublishingError } from "../shared/errors.ts"

const jobError = (code: ErrorCode, httpStatus: number, message: string): PublishingError => ({
  category: categoryOf[code],
  code,
  httpStatus,
  message,
  retryable: false
})

/** The document could not be typeset (Typst refused it, or it ran past the render deadline). */
export const renderingFailed = (message: string): PublishingError => jobError("rendering_failed", 422, message)

export const cancelled = (): PublishingError => jobError("job_cancelled", 409, "the job was cancelled")

/** Every attempt failed for a transient reason. */
export const exhausted = (): PublishingError => publishingError(new InternalError())
