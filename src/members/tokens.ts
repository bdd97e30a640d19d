/** The opaque tokens of sessions and invitations: 256 random bits, kept by the server only as their SHA-256. */
import { randomBytes } from "node:crypto"
import { sha256Hex } from "../shared/hash.ts"

export const newToken = (): string => randomBytes(32).toString("base64url")

export const hashToken = (token: string): string => sha256Hex(token)

/** Whether `text` can be a token at all (43 base64url characters), checked before any lookup. */
export const isTokenShaped = (text: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(text)
