/**
 * Signed download links (specification section 4, Table A; contract section 5): nothing is stored
 * per link. A link is `/api/v2/artifact-links/{token}`, where the token is
 * `base64url(payload) "." base64url(HMAC-SHA256(linkKey, payload))` and the payload is 24 bytes:
 * the artifact id (16) and the link's expiry in unix seconds (8, big-endian). The link key is
 * derived from the server key, so every process of a cluster verifies what any of them minted,
 * and a new server key voids every link given out.
 *
 * A token has one spelling: 32 and 43 characters of the base64url alphabet around a dot. The
 * length is checked before anything is decoded, the signature is compared as text in constant
 * time (so a signature whose last character differs only in bits base64 ignores is refused too),
 * and the payload is read only once its signature holds.
 */
import { HttpServer } from "@effect/platform"
import { Clock, Data, Effect, Either, Option } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import { KEY_LABELS, ServerKey } from "../shared/server-key.ts"
import { linkConfig } from "./config.ts"

export const LINK_PATH_PREFIX = "/api/v2/artifact-links/"

const PAYLOAD_BYTES = 24
const TOKEN = /^[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]{43}$/
const TOKEN_LENGTH = 32 + 1 + 43
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Why a link is refused: not a token at all, a token this server did not sign as it stands, or
 * one past its expiry. The download answers all three with 403 and no bytes (contract section 5).
 */
export class LinkRefused extends Data.TaggedError("LinkRefused")<{ readonly reason: "malformed" | "tampered" | "expired" }> {}

export interface MintedLink {
  /** The link's path, to be put after the public base URL (`ArtifactLinks.href`). */
  readonly path: string
  readonly expiresAt: Date
}

const signatureOf = (linkKey: Uint8Array, payload: Buffer) => createHmac("sha256", linkKey).update(payload).digest("base64url")

/** A link to `artifactId` (a UUID) valid until `expiresAt`, taken down to the whole second. */
export const mintLink = (linkKey: Uint8Array, artifactId: string, expiresAt: Date): MintedLink => {
  if (!UUID.test(artifactId)) throw new TypeError("an artifact id is a UUID")
  const seconds = Math.floor(expiresAt.getTime() / 1000)
  const payload = Buffer.alloc(PAYLOAD_BYTES)
  payload.write(artifactId.replaceAll("-", ""), 0, 16, "hex")
  payload.writeBigUInt64BE(BigInt(Math.max(0, seconds)), 16)
  return {
    path: `${LINK_PATH_PREFIX}${payload.toString("base64url")}.${signatureOf(linkKey, payload)}`,
    expiresAt: new Date(seconds * 1000)
  }
}

/** The artifact id a link's token grants at `now`, or why it grants nothing. */
export const verifyLink = (linkKey: Uint8Array, token: string, now: Date): Either.Either<string, LinkRefused> => {
  if (token.length !== TOKEN_LENGTH || !TOKEN.test(token)) return Either.left(new LinkRefused({ reason: "malformed" }))
  const [encodedPayload, signature] = token.split(".") as [string, string]
  const payload = Buffer.from(encodedPayload, "base64url")
  // 32 characters are exactly 24 bytes (no spare bits): a payload has one spelling.
  if (!timingSafeEqual(Buffer.from(signatureOf(linkKey, payload)), Buffer.from(signature))) {
    return Either.left(new LinkRefused({ reason: "tampered" }))
  }
  if (now.getTime() >= Number(payload.readBigUInt64BE(16)) * 1000) return Either.left(new LinkRefused({ reason: "expired" }))
  const hex = payload.toString("hex", 0, 16)
  return Either.right(`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`)
}

/** A link lasts `ttlSeconds` from `now`, but never outlives its artifact. */
export const linkExpiry = (now: Date, ttlSeconds: number, artifactExpiresAt: Date): Date =>
  new Date(Math.min(now.getTime() + ttlSeconds * 1000, artifactExpiresAt.getTime()))

/** `http://host:port` of a listening address (an IPv6 host in brackets, which Effect's `formatAddress` leaves out). */
const listeningBase = (address: HttpServer.Address) =>
  address._tag === "TcpAddress"
    ? `http://${address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname}:${address.port}`
    : HttpServer.formatAddress(address)

/**
 * Download links with the server's link key and configuration (`PRESSROOM_LINK_TTL_SECONDS`,
 * `PRESSROOM_PUBLIC_BASE_URL`), read when the platform starts so a bad value refuses the start.
 */
export class ArtifactLinks extends Effect.Service<ArtifactLinks>()("pressroom/ArtifactLinks", {
  effect: Effect.gen(function* () {
    const linkKey = (yield* ServerKey).deriveKey(KEY_LABELS.artifactLinks)
    const { ttlSeconds, publicBaseUrl } = yield* linkConfig
    return {
      /** A link to the artifact, lasting the configured TTL or until `artifactExpiresAt`, whichever is sooner. */
      mint: (artifactId: string, artifactExpiresAt: Date): Effect.Effect<MintedLink> =>
        Effect.map(Clock.currentTimeMillis, (now) =>
          mintLink(linkKey, artifactId, linkExpiry(new Date(now), ttlSeconds, artifactExpiresAt))
        ),
      /** The artifact id the token (the last segment of a link's path) grants now. */
      verify: (token: string): Effect.Effect<string, LinkRefused> =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => verifyLink(linkKey, token, new Date(now))),
      /**
       * The absolute URL of a link's path: under `PRESSROOM_PUBLIC_BASE_URL` when set, else under
       * the address the server actually listens on (known only once it listens: PORT may be 0),
       * which is why this asks for the running `HttpServer` rather than reading HOST and PORT.
       */
      href: (path: string): Effect.Effect<string, never, HttpServer.HttpServer> =>
        Option.match(publicBaseUrl, {
          onSome: (base) => Effect.succeed(`${base}${path}`),
          onNone: () => Effect.map(HttpServer.HttpServer, (server) => `${listeningBase(server.address)}${path}`)
        })
    }
  })
}) {}
