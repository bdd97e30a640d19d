/**
 * Passwords kept only as a memory-hard hash (contract section 12): Node's `crypto.scrypt` with
 * OWASP's parameters (N = 2^17, r = 8, p = 1: 128 MiB and a few hundred milliseconds per hash; N is
 * the setting `PRESSROOM_PASSWORD_HASH_COST`, src/members/config.ts),
 * chosen over argon2id (`@node-rs/argon2`) because it needs no native addon: it runs wherever
 * Node and Deno run the server, off the event loop in libuv's thread pool. The stored string
 * carries its parameters and salt (`scrypt$17$8$1$<salt>$<hash>`), so a later change of
 * parameters still verifies old hashes. Comparison is constant-time.
 */
import { Effect } from "effect"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

const R = 8
const P = 1
const KEY_LENGTH = 32
/** scrypt needs 128 * N * r bytes; Node refuses past `maxmem`, whose default (32 MiB) is too small. */
const maxmem = (logN: number, r: number) => 129 * r * 2 ** logN + 1024 * 1024

export const MIN_PASSWORD_LENGTH = 12
/** Long passphrases are fine; past this it is a payload, not a password. */
export const MAX_PASSWORD_LENGTH = 1024

const derive = (password: string, salt: Buffer, logN: number, r: number, p: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, { N: 2 ** logN, r, p, maxmem: maxmem(logN, r) }, (error, key) =>
      resume(error ? Effect.die(error) : Effect.succeed(key))
    )
  })

/** The string to store for `password`, hashed with N = 2^`logN`. */
export const hashPassword = (password: string, logN: number): Effect.Effect<string> =>
  Effect.suspend(() => {
    const salt = randomBytes(16)
    return Effect.map(
      derive(password, salt, logN, R, P),
      (key) => `scrypt$${logN}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`
    )
  })

/**
 * A stored string no password matches, made at the cost new hashes are made at, and verified in
 * place of a missing one so that every sign-in costs the same.
 */
export const unmatchableHash = (logN: number): string =>
  `scrypt$${logN}$${R}$${P}$${Buffer.alloc(16).toString("base64url")}$${Buffer.alloc(KEY_LENGTH).toString("base64url")}`

/** Whether `password` is the one `stored` was made from. */
export const verifyPassword = (password: string, stored: string): Effect.Effect<boolean> =>
  Effect.suspend(() => {
    const [scheme, logN, r, p, salt, hash] = stored.split("$")
    if (scheme !== "scrypt" || hash === undefined) return Effect.succeed(false)
    const expected = Buffer.from(hash, "base64url")
    return Effect.map(
      derive(password, Buffer.from(salt!, "base64url"), Number(logN), Number(r), Number(p)),
      (key) => key.length === expected.length && timingSafeEqual(key, expected)
    )
  })
