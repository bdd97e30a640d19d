/**
 * Webhook signing secrets (contract section 10) and how they are kept: the form of a secret and
 * its fingerprint, sealing that round-trips under the server's derived key and refuses a tampered
 * value, another server key or another subscription or version, and the secrets that sign at the
 * edges of a rotation's overlap.
 */
import { createHash, randomBytes } from "node:crypto"
import t from "tap"
import { KEY_LABELS, makeServerKey } from "../../src/shared/server-key.ts"
import { fingerprintOf, newSigningSecret, open, seal, secretContext, signingSecrets } from "../../src/webhooks/secrets.ts"

const keyOf = (serverKey: Buffer) => makeServerKey(serverKey).deriveKey(KEY_LABELS.webhookSecrets)
const key = keyOf(randomBytes(32))
const id = "5f0c1a52-3c8e-4a57-9d0e-7b1b3a1f9e21"

t.test("a secret is whsec_ and the base64 of 32 random bytes; its fingerprint is 16 hex of its SHA-256", async (t) => {
  const secret = newSigningSecret()
  t.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
  t.equal(Buffer.from(secret.slice("whsec_".length), "base64").length, 32)
  t.not(newSigningSecret(), secret, "each secret is new")
  t.equal(fingerprintOf(secret), createHash("sha256").update(secret).digest("hex").slice(0, 16))
})

t.test("sealing", async (t) => {
  const secret = newSigningSecret()
  const sealed = seal(key, secret, secretContext(id, 1))
  t.notMatch(sealed, secret.slice(6, 20), "the sealed value does not hold the secret")
  t.equal(open(key, sealed, secretContext(id, 1)), secret, "it opens under the same key and context")
  t.not(seal(key, secret, secretContext(id, 1)), sealed, "a fresh nonce each time")

  const bytes = Buffer.from(sealed, "base64")
  for (const at of [0, 12, bytes.length - 1]) {
    const tampered = Buffer.from(bytes)
    tampered[at]! ^= 1
    t.throws(() => open(key, tampered.toString("base64"), secretContext(id, 1)), `a byte changed at ${at} is refused`)
  }
  t.throws(() => open(key, bytes.subarray(0, 20).toString("base64"), secretContext(id, 1)), "a truncated value is refused")
  t.throws(() => open(keyOf(randomBytes(32)), sealed, secretContext(id, 1)), "another server key cannot open it")
  t.throws(() => open(key, sealed, secretContext("0b5e8a3c-1d2f-4e6a-8b9c-0d1e2f3a4b5c", 1)), "nor another subscription")
  t.throws(() => open(key, sealed, secretContext(id, 2)), "nor another version")
  // Every process of a cluster is given the same server key, and derives the same key from it.
  const shared = randomBytes(32)
  t.equal(open(keyOf(Buffer.from(shared)), seal(keyOf(Buffer.from(shared)), secret, "c"), "c"), secret, "one server key, any process")
})

t.test("the secrets that sign: the current one, and the previous one until its overlap ends", async (t) => {
  const first = newSigningSecret()
  const second = newSigningSecret()
  const expiresAt = new Date("2026-11-27T09:00:00.000Z")
  const rotated = {
    id,
    secretVersion: 2,
    secretSealed: seal(key, second, secretContext(id, 2)),
    previousSecretSealed: seal(key, first, secretContext(id, 1)),
    previousSecretExpiresAt: expiresAt
  }
  t.same(
    signingSecrets(key, { ...rotated, previousSecretSealed: null, previousSecretExpiresAt: null }, expiresAt),
    [second],
    "never rotated"
  )
  t.same(signingSecrets(key, rotated, new Date(expiresAt.getTime() - 86_400_000)), [second, first], "at the rotation: both")
  t.same(signingSecrets(key, rotated, new Date(expiresAt.getTime() - 1)), [second, first], "1 ms before the end: both")
  t.same(signingSecrets(key, rotated, expiresAt), [second], "at the end: only the new one")
  t.same(signingSecrets(key, rotated, new Date(expiresAt.getTime() + 1)), [second], "after it: only the new one")
  t.throws(() => signingSecrets(keyOf(randomBytes(32)), rotated, expiresAt), "another server key signs nothing")
})
