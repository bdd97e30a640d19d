import { createHash } from "node:crypto"
import { closeSync, openSync, readSync } from "node:fs"
import canonicalizeModule from "canonicalize"

// canonicalize (by an author of RFC 8785) is CommonJS whose typings declare an ES default export;
// at run time the default import is the function itself.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined

/** SHA-256 of exact bytes (strings are hashed as UTF-8), as 64 lowercase hex characters. */
export const sha256Hex = (data: Uint8Array | string): string => createHash("sha256").update(data).digest("hex")

/** One buffer for every file hashed: a large file read whole into fresh memory costs more than its hash. */
const chunk = new Uint8Array(1 << 20)

/**
 * SHA-256 of a file's bytes, read through one reused buffer: the 60 MB font set hashes in about
 * 50 ms of CPU this way, against about 400 ms with each file read whole (the 52 MB native
 * compiler alike), which every server start and native worker start paid. Throws the open's error.
 */
export const fileSha256 = (path: string): string => {
  const hash = createHash("sha256")
  const fd = openSync(path, "r")
  try {
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) hash.update(chunk.subarray(0, read))
  } finally {
    closeSync(fd)
  }
  return hash.digest("hex")
}

/** RFC 8785 (JCS) canonical JSON: the serialisation every *Sha256 over a JSON value uses. */
export const jcs = (value: unknown): string => {
  const text = canonicalize(value)
  if (text === undefined) throw new TypeError("value has no JSON representation")
  return text
}

export const jcsSha256 = (value: unknown): string => sha256Hex(jcs(value))
