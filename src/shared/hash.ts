import { createHash } from "node:crypto"
import canonicalize from "canonicalize"

/** SHA-256 of exact bytes (strings are hashed as UTF-8), as 64 lowercase hex characters. */
export const sha256Hex = (data: Uint8Array | string): string =>
  createHash("sha256").update(data).digest("hex")

/** RFC 8785 (JCS) canonical JSON: the serialisation every *Sha256 over a JSON value uses. */
export const jcs = (value: unknown): string => {
  const text = canonicalize(value)
  if (text === undefined) throw new TypeError("value has no JSON representation")
  return text
}

export const jcsSha256 = (value: unknown): string => sha256Hex(jcs(value))
