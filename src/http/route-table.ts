/** The API's paths and their methods, to tell an unknown path (404) from a wrong method (405). */
import { HttpApi } from "@effect/platform"

export interface RouteTable {
  /** The methods of the API's routes that match `pathname`; empty for an unknown path. */
  readonly methodsFor: (pathname: string) => ReadonlyArray<string>
  /** The route template `pathname` matches (`/api/v2/templates/:templateId`), for metrics labels. */
  readonly routeOf: (pathname: string) => string
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
    routeOf: (pathname) => routes.find((route) => route.pattern.test(pathname))?.path ?? "unmatched"
  }
}
