/**
 * The API's paths and their methods, to tell an unknown path (404) from a wrong method (405), and
 * both from a path parameter the router cannot take (400).
 */
import { HttpApi } from "@effect/platform"

/** The router (find-my-way) matches no path parameter longer than this once decoded: its default `maxParamLength`. */
const ROUTER_MAX_PARAM_LENGTH = 100

export interface RouteTable {
  /** The methods of the API's routes that match `pathname`; empty for an unknown path. */
  readonly methodsFor: (pathname: string) => ReadonlyArray<string>
  /** The route template `pathname` matches (`/api/v2/templates/:templateId`), for metrics labels. */
  readonly routeOf: (pathname: string) => string
  /**
   * Why the router found no route of `method` for `pathname` when one matches it here: a path
   * parameter that does not decode, or is longer than the router takes (the route is then the
   * right one, and the parameter invalid).
   */
  readonly refusedParameter: (method: string, pathname: string) => { readonly field: string; readonly message: string } | undefined
}

const refusal = (template: string, pathname: string) => {
  const values = pathname.split("/")
  for (const [i, part] of template.split("/").entries()) {
    if (!part.startsWith(":")) continue
    const field = part.slice(1)
    let value: string
    try {
      value = decodeURIComponent(values[i]!)
    } catch {
      return { field, message: `${field}: not valid percent-encoding` }
    }
    if (value.length > ROUTER_MAX_PARAM_LENGTH) return { field, message: `${field}: longer than ${ROUTER_MAX_PARAM_LENGTH} characters` }
  }
  return undefined
}

const toPattern = (path: string) =>
  new RegExp(
    `^${path
      .split("/")
      .map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/")}/?$`
  )

/** `hidden`: path prefixes that answer as unknown (the admin API when it is off). */
export const routeTable = (
  api: HttpApi.HttpApi.Any,
  extra: ReadonlyArray<{ method: string; path: string }> = [],
  hidden: ReadonlyArray<string> = []
): RouteTable => {
  const routes: Array<{ pattern: RegExp; method: string; path: string }> = extra.map((route) => ({
    pattern: toPattern(route.path),
    ...route
  }))
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      if (hidden.some((prefix) => endpoint.path.startsWith(prefix))) return
      routes.push({ pattern: toPattern(endpoint.path), method: endpoint.method, path: endpoint.path })
    }
  })
  return {
    methodsFor: (pathname) => {
      const methods = new Set(routes.filter((route) => route.pattern.test(pathname)).map((route) => route.method))
      if (methods.has("GET")) methods.add("HEAD")
      return [...methods].sort()
    },
    routeOf: (pathname) => routes.find((route) => route.pattern.test(pathname))?.path ?? "unmatched",
    refusedParameter: (method, pathname) => {
      const routed = method === "HEAD" ? "GET" : method
      const route = routes.find((route) => route.method === routed && route.pattern.test(pathname))
      return route && refusal(route.path, pathname)
    }
  }
}
