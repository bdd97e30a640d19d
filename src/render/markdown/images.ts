/**
 * Images embed only from `data:` URIs of PNG, JPEG, GIF and SVG. Nothing is ever fetched: any other
 * URL leaves its alt text in place and a warning. An embedded image is stored in the compiler's
 * virtual file system under a content-addressed path, so its bytes are also its provenance.
 */
import { sha256Hex } from "../../shared/hash.ts"

export type ImageKind = "png" | "jpg" | "gif" | "svg"

export interface EmbeddedImage {
  readonly path: string
  readonly kind: ImageKind
  readonly bytes: Uint8Array
  readonly sha256: string
}

export type ImageDecoding =
  | { readonly _tag: "embedded"; readonly image: EmbeddedImage }
  | { readonly _tag: "remote" }
  | { readonly _tag: "invalid"; readonly reason: string }

const DATA_URI = /^data:([a-z0-9.+/-]*)((?:;[a-z0-9=.+-]+)*?)(;base64)?,(.*)$/is

const startsWith = (bytes: Uint8Array, prefix: ReadonlyArray<number>): boolean => prefix.every((value, index) => bytes[index] === value)

/** Recognises the format from the bytes themselves: the declared media type can lie. */
const sniff = (bytes: Uint8Array): ImageKind | undefined => {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png"
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "jpg"
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return "gif"
  const head = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, 1024)).trimStart()
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head)) return "svg"
  return undefined
}

export const decodeImage = (url: string): ImageDecoding => {
  const match = DATA_URI.exec(url.trim())
  if (!match) return { _tag: "remote" }
  const [, mediaType, , base64, payload] = match
  let bytes: Uint8Array
  try {
    bytes = base64
      ? Uint8Array.from(Buffer.from(payload!.replace(/\s+/g, ""), "base64"))
      : new TextEncoder().encode(decodeURIComponent(payload!))
  } catch {
    return { _tag: "invalid", reason: "its data cannot be decoded" }
  }
  const kind = sniff(bytes)
  if (!kind) return { _tag: "invalid", reason: `${mediaType || "its data"} is not a PNG, JPEG, GIF or SVG image` }
  const sha256 = sha256Hex(bytes)
  return { _tag: "embedded", image: { path: `/assets/${sha256}.${kind}`, kind, bytes, sha256 } }
}
