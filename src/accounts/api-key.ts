/**
 * The API key as a string (contract section 2): `pk_live_` or `pk_test_` and 32 lowercase hex
 * characters from the system's cryptographic random source. The service keeps only its SHA-256
 * and a short prefix to recognise it by; the key itself is shown once, when it is created.
 */
import { randomBytes } from "node:crypto"
import { sha256Hex } from "../shared/hash.ts"
import type { KeyEnvironment } from "./principal.ts"

const API_KEY = /^pk_(live|test)_[0-9a-f]{32}$/

/** How many leading characters are kept in clear (`pk_live_1a2b`): 16 bits of the secret, not enough to guess the rest. */
const PREFIX_LENGTH = 12

/** A new key of `environment`: 128 random bits. */
export const generateApiKey = (environment: KeyEnvironment): string => `pk_${environment}_${randomBytes(16).toString("hex")}`

/** The environment a well-formed key belongs to; undefined for anything that is not a key. */
export const environmentOf = (candidate: string): KeyEnvironment | undefined => API_KEY.exec(candidate)?.[1] as KeyEnvironment | undefined

/** What is stored in place of the key. */
export const hashApiKey = (key: string): string => sha256Hex(key)

export const prefixOf = (key: string): string => key.slice(0, PREFIX_LENGTH)
