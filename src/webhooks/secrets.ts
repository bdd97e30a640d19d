/**
 * Webhook signing secrets (contract section 10) and how they are kept. A secret is `whsec_` and the
 * base64 of 32 random bytes; its fingerprint is the first 16 hex characters of the SHA-256 of that
 * string. At rest it is sealed with AES-256-GCM under the key the server key derives for
 * `pressroom/webhook-secrets/v1`, a fresh 96-bit nonce each time, and associated data naming what
 * it is (the subscription and the secret's version), so every process of a cluster can open it, a
 * reader of the database cannot, and a sealed secret moved to another row or version does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import { sha256Hex } from "../shared/hash.ts"

const SECRET_PREFIX = "whsec_"
const SECRET_BYTES = 32
const NONCE_BYTES = 12
const TAG_BYTES = 16

export const newSigningSecret = (): string => `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`

export const fingerprintOf = (secret: string): string => sha256Hex(secret).slice(0, 16)

/** `plaintext` sealed under `key` (32 bytes) for `context`: base64 of nonce, ciphertext and tag. */
export const seal = (key: Buffer, plaintext: string, context: string): string => {
  const nonce = randomBytes(NONCE_BYTES)
  const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_BYTES })
  cipher.setAAD(Buffer.from(context, "utf8"))
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
  return Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]).toString("base64")
}

/**
 * The plaintext of `sealed`. Throws when it was not sealed under `key` for `context`, or was
 * altered: a row that does not open is a broken invariant (a changed server key, a tampered row),
 * never something to sign with.
 */
export const open = (key: Buffer, sealed: string, context: string): string => {
  const bytes = Buffer.from(sealed, "base64")
  if (bytes.length < NONCE_BYTES + TAG_BYTES) throw new Error("a sealed value is too short")
  const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES })
  decipher.setAAD(Buffer.from(context, "utf8"))
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
  return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8")
}

/** The associated data of a subscription's secret of `version`. */
export const secretContext = (subscriptionId: string, version: number): string =>
  `webhook-subscription:${subscriptionId}:secret:v${version}`

/** A subscription's secrets as stored. */
export interface SealedSecrets {
  readonly id: string
  readonly secretVersion: number
  readonly secretSealed: string
  readonly previousSecretSealed: string | null
  readonly previousSecretExpiresAt: Date | null
}

/**
 * The secrets that sign a delivery at `now`: the current one, and the previous one while its
 * overlap lasts (until `previousSecretExpiresAt`, excluded). Contract section 10: after a
 * rotation both sign, space-separated in `webhook-signature`.
 */
export const signingSecrets = (key: Buffer, subscription: SealedSecrets, now: Date): ReadonlyArray<string> => {
  const current = open(key, subscription.secretSealed, secretContext(subscription.id, subscription.secretVersion))
  const { previousSecretSealed, previousSecretExpiresAt } = subscription
  if (previousSecretSealed === null || previousSecretExpiresAt === null || now.getTime() >= previousSecretExpiresAt.getTime()) {
    return [current]
  }
  return [current, open(key, previousSecretSealed, secretContext(subscription.id, subscription.secretVersion - 1))]
}
