/**
 * What every v2 contract test checks the same way: the error envelope (specification section 7,
 * contract section 3) to the letter, keys with chosen scopes on one account, and requests a JSON
 * client would not send (no or another Content-Type, a raw body).
 */
import { type JsonResponse, requestJson } from "./api.ts"
import { ADMIN_TOKEN, type RunningServer } from "./server.ts"
import type { TestContext } from "./tap.ts"

type Server = Pick<RunningServer, "url">

export const CONTRACT_VERSION = "publishing.lifecycle.v1"

/** Each code's category (specification section 7, contract section 3). */
const CATEGORIES: Record<string, string> = {
  invalid_request: "input",
  unauthorized: "authentication",
  forbidden: "authorization",
  not_found: "authorization",
  idempotency_conflict: "conflict",
  invalid_state_transition: "conflict",
  reservation_conflict: "conflict",
  quota_exhausted: "entitlement",
  rate_limited: "entitlement",
  artifact_expired: "storage",
  artifact_unavailable: "storage",
  service_unavailable: "internal",
  internal_error: "internal"
}

/** The members of `error.details` the specification shows; a field name is not one of them. */
const DETAIL_MEMBERS = new Set(["correlationId", "retryAfterSeconds", "currentState", "expectedStates"])
const ERROR_MEMBERS = new Set(["category", "code", "httpStatus", "message", "retryable", "details"])

/**
 * Asserts a v2 error envelope: status, code, its category, httpStatus, retryable (false unless
 * said), the correlation id of the response header, no member the specification does not show,
 * and, when `field` is given, a message that names it.
 */
export const expectError = (
  t: TestContext,
  response: JsonResponse,
  status: number,
  code: string,
  what: string,
  options: { readonly field?: string; readonly retryable?: boolean } = {}
) => {
  const body = response.body ?? {}
  const error = body.error ?? {}
  const details = error.details ?? {}
  const message: string = typeof error.message === "string" ? error.message : ""
  t.same(
    {
      status: response.status,
      envelope: Object.keys(body).sort(),
      contractVersion: body.contractVersion,
      code: error.code,
      category: error.category,
      httpStatus: error.httpStatus,
      retryable: error.retryable,
      correlationId: details.correlationId,
      unknownMembers: [
        ...Object.keys(error).filter((key) => !ERROR_MEMBERS.has(key)),
        ...Object.keys(details).filter((key) => !DETAIL_MEMBERS.has(key))
      ],
      messageNamesField: options.field === undefined ? true : message.includes(options.field)
    },
    {
      status,
      envelope: ["contractVersion", "error"],
      contractVersion: CONTRACT_VERSION,
      code,
      category: CATEGORIES[code],
      httpStatus: status,
      retryable: options.retryable ?? false,
      correlationId: response.headers.get("x-correlation-id"),
      unknownMembers: [],
      messageNamesField: true
    },
    `${what}: ${status} ${code}${options.field === undefined ? "" : ` naming ${options.field}`} (${message})`
  )
}

/** An error body without what differs between two requests (the correlation id), to compare two refusals. */
export const withoutCorrelation = (body: any) => {
  const { correlationId: _, ...details } = body?.error?.details ?? {}
  return { ...body, error: { ...body?.error, details } }
}

/** Another key of `accountId` with exactly `scopes`, through the admin API. */
export const createKey = async (server: Server, accountId: string, scopes: ReadonlyArray<string>): Promise<string> => {
  const key = await requestJson(server, "POST", `/admin/v1/accounts/${accountId}/keys`, { token: ADMIN_TOKEN, body: { scopes } })
  if (key.status !== 201) throw new Error(`key creation failed: ${key.status} ${JSON.stringify(key.body)}`)
  return key.body.secret as string
}

/**
 * A request with the body and headers exactly as given: no Content-Type unless `headers` has one
 * (a Blob without a type gets none from fetch, where a string would be sent as text/plain).
 */
export const sendRaw = async (
  server: Server,
  method: string,
  path: string,
  options: { token?: string; headers?: Record<string, string>; body?: string } = {}
): Promise<JsonResponse> => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
    ...(options.body === undefined ? {} : { body: new Blob([options.body]) })
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) }
}
