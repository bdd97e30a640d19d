import { createHash } from "node:crypto"
import canonicalizeModule from "canonicalize"

// canonicalize (by an author of RFC 8785) is CommonJS whose typings declare an ES default export;
// at run time the default import is the function itself.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined

/** SHA-256 of exact bytes (strings are hashed as UTF-8), as 64 lowercase hex characters. */
export const sha256Hex = (data: Uint8Array | string): string => createHash("sha256").update(data).digest("hex")

/** RFC 8785 (JCS) canonical JSON: the serialisation every *Sha256 over a JSON value uses. */
export const jcs = (value: unknown): string => {
  const text = canonicalize(value)
  if (text === undefined) throw new TypeError("value has no JSON representation")
  return text
}

export const jcsSha256 = (value: unknown): string => sha256Hex(jcs(value))
