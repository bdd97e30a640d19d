/**
 * A dashboard client over plain HTTP, for the security tests: what a browser sends (cookies, the
 * form's CSRF token, its Origin) made explicit, so that each can be left out or forged.
 */
import type { RunningServer } from "../helpers/server.ts"

export interface PageResponse {
  readonly status: number
  readonly headers: Headers
  readonly body: string
  /** The `Set-Cookie` values by cookie name. */
  readonly cookies: ReadonlyMap<string, string>
}

const cookiesOf = (headers: Headers) =>
  new Map(
    headers.getSetCookie().map((line) => {
      const [pair] = line.split(";")
      const eq = pair!.indexOf("=")
      return [pair!.slice(0, eq), pair!.slice(eq + 1)] as const
    })
  )

export const request = async (
  server: Pick<RunningServer, "url">,
  method: string,
  path: string,
  options: {
    cookies?: Readonly<Record<string, string>>
    form?: Readonly<Record<string, string | ReadonlyArray<string>>>
    headers?: Record<string, string>
  } = {}
): Promise<PageResponse> => {
  const body = new URLSearchParams()
  for (const [name, value] of Object.entries(options.form ?? {}))
    for (const one of typeof value === "string" ? [value] : value) body.append(name, one)
  const response = await fetch(`${server.url}${path}`, {
    method,
    redirect: "manual",
    headers: {
      ...(options.cookies
        ? {
            cookie: Object.entries(options.cookies)
              .map(([k, v]) => `${k}=${v}`)
              .join("; ")
          }
        : {}),
      ...(options.form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      ...options.headers
    },
    ...(options.form ? { body: body.toString() } : {})
  })
  return { status: response.status, headers: response.headers, body: await response.text(), cookies: cookiesOf(response.headers) }
}

/** The CSRF token of the (first) form of a page. */
export const csrfOf = (page: PageResponse): string => {
  const match = /name="csrf" value="([^"]+)"/.exec(page.body)
  if (!match) throw new Error(`no form token in the page (${page.status})`)
  return match[1]!
}

/** The path of an absolute invitation URL, to send it to the test server whatever its public base. */
export const pathOf = (url: string) => new URL(url).pathname
