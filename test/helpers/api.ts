/**
 * A client of a running server, in the words of the contract: the admin API to set up accounts
 * and keys, and the public API as a user calls it.
 */
import { ADMIN_TOKEN, type RunningServer } from "./server.ts"

export interface JsonResponse<T = any> {
  readonly status: number
  readonly headers: Headers
  readonly body: T
}

export const requestJson = async <T = any>(
  server: Pick<RunningServer, "url">,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}
): Promise<JsonResponse<T>> => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
      ...options.headers
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {})
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) }
}

export interface TestAccount {
  readonly accountId: string
  readonly key: string
}

/** An account with one key, through the admin API. */
export const createAccount = async (
  server: Pick<RunningServer, "url">,
  options: { plan?: string; monthlyUnits?: number; scopes?: ReadonlyArray<string>; name?: string } = {}
): Promise<TestAccount> => {
  const account = await requestJson(server, "POST", "/admin/v1/accounts", {
    token: ADMIN_TOKEN,
    body: {
      name: options.name ?? "Test account",
      plan: options.plan ?? "monthly",
      ...(options.monthlyUnits !== undefined ? { monthlyUnits: options.monthlyUnits } : {})
    }
  })
  if (account.status !== 201) throw new Error(`account creation failed: ${account.status} ${JSON.stringify(account.body)}`)
  const accountId = account.body.account.id as string
  const key = await requestJson(server, "POST", `/admin/v1/accounts/${accountId}/keys`, {
    token: ADMIN_TOKEN,
    body: options.scopes ? { scopes: options.scopes } : {}
  })
  if (key.status !== 201) throw new Error(`key creation failed: ${key.status} ${JSON.stringify(key.body)}`)
  return { accountId, key: key.body.secret as string }
}

export const usageOf = async (server: Pick<RunningServer, "url">, accountId: string) =>
  (await requestJson(server, "GET", `/admin/v1/accounts/${accountId}`, { token: ADMIN_TOKEN })).body.usage as {
    used: number
    reserved: number
    remaining: number
    creditUnits: number
    webDaily?: { used: number; remaining: number }
  }

/** `POST /api/v1/convert`; the body is the PDF on 200 and the parsed error otherwise. */
export const convert = async (
  server: Pick<RunningServer, "url">,
  key: string | undefined,
  body: unknown,
  options: { signal?: AbortSignal; contentType?: string; rawBody?: string } = {}
) => {
  const response = await fetch(`${server.url}/api/v1/convert`, {
    method: "POST",
    headers: {
      ...(key !== undefined ? { authorization: `Bearer ${key}` } : {}),
      "content-type": options.contentType ?? "application/json"
    },
    body: options.rawBody ?? JSON.stringify(body),
    ...(options.signal ? { signal: options.signal } : {})
  })
  const bytes = new Uint8Array(await response.arrayBuffer())
  const isPdf = response.headers.get("content-type") === "application/pdf"
  return {
    status: response.status,
    headers: response.headers,
    pdf: isPdf ? bytes : undefined,
    error: isPdf ? undefined : (JSON.parse(Buffer.from(bytes).toString("utf8")) as { error: Record<string, any>; contractVersion?: string })
  }
}
