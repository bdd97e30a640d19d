/**
 * Whether a failure means the database could not be reached (connection refused or dropped, the
 * server shutting down or restarting, out of connections) rather than a fault of a statement.
 * Such a failure is transient: a client gets 503 service_unavailable with Retry-After and retries,
 * where any other failure of a statement is a 500.
 */
import { Cause } from "effect"

/** Socket errors of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"])

/**
 * SQLSTATEs of the server refusing or ending the session: 57P01 admin_shutdown, 57P02
 * crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections; and class 08, connection
 * exception.
 */
const SERVER_CODES = new Set(["57P01", "57P02", "57P03", "53300"])

/** node-postgres reports a connection closed under it by message only, without a code. */
const LOST_CONNECTION = /^Connection terminated/

const unreachable = (error: unknown, depth: number): boolean => {
  if (typeof error !== "object" || error === null || depth > 5) return false
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown }
  if (typeof code === "string" && (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith("08"))) return true
  if (typeof message === "string" && LOST_CONNECTION.test(message)) return true
  return unreachable(cause, depth + 1)
}

export const isDatabaseUnreachable = (error: unknown): boolean => unreachable(error, 0)

/** Whether any failure or defect of `cause` is the database being unreachable. */
export const causeIsDatabaseUnreachable = (cause: Cause.Cause<unknown>): boolean =>
  [...Cause.failures(cause), ...Cause.defects(cause)].some(isDatabaseUnreachable)
