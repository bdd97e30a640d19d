/**
 * The dashboard's static files (`assets/dashboard/` of the package: its stylesheet and scripts),
 * read once when the server starts and served from `/app/assets/<name>`. Nothing comes from
 * elsewhere: the Content-Security-Policy allows the server's own origin only.
 */
import { HttpServerResponse } from "@effect/platform"
import { readdirSync, readFileSync } from "node:fs"
import { extname, join } from "node:path"
import { packageRoot } from "../render/fonts/manifest.ts"
import { secured } from "./responses.ts"

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png"
}

export const assetsDir = join(packageRoot, "assets", "dashboard")

/** Every asset by name, with its bytes and type. */
export const loadAssets = (): ReadonlyMap<string, { readonly bytes: Uint8Array; readonly contentType: string }> =>
  new Map(
    readdirSync(assetsDir)
      .filter((name) => CONTENT_TYPES[extname(name)] !== undefined)
      .map((name) => [name, { bytes: readFileSync(join(assetsDir, name)), contentType: CONTENT_TYPES[extname(name)]! }])
  )

export const assetResponse = (asset: { readonly bytes: Uint8Array; readonly contentType: string }) =>
  HttpServerResponse.setHeader(
    secured(HttpServerResponse.uint8Array(asset.bytes, { contentType: asset.contentType })),
    // Revalidated on each use: a new version of the server may change them under the same name.
    "cache-control",
    "no-cache"
  )
