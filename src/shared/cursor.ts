/**
 * The list cursor (contract section 5: opaque and tamper-evident; specification: at most 512
 * characters): the position after the last item of a page, newest first, as
 * `base64url(JSON [createdAt, id]) "." base64url(HMAC-SHA256(cursorKey, listing "." payload))`.
 * The listing (the owner's account id for documents; it and the subscription for a webhook's
 * deliveries) is signed but not carried, so a cursor is good only for the listing it was given
 * for. Anything else (altered, invented, too long, another owner's or listing's, signed with
 * another server key) is a 400 naming `cursor`, and is not decoded further than its length.
 */
import { Effect, Either, Schema } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import { InvalidRequest } from "./errors.ts"
import { CursorPosition, MAX_CURSOR_LENGTH } from "./pagination.ts"
import { KEY_LABELS, ServerKey } from "./server-key.ts"

const Payload = Schema.parseJson(Schema.Tuple(CursorPosition.fields.createdAt, CursorPosition.fields.id))
const CURSOR = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/

const refused = () =>
  new InvalidRequest({
    status: 400,
    field: "cursor",
    message: "cursor is not one this listing gave out: pass pagination.nextCursor of the preceding page unchanged"
  })

const signatureOf = (cursorKey: Uint8Array, listing: string, payload: string) =>
  createHmac("sha256", cursorKey).update(`${listing}.${payload}`).digest("base64url")

export const encodeCursor = (cursorKey: Uint8Array, listing: string, position: CursorPosition): string => {
  const payload = Buffer.from(Schema.encodeSync(Payload)([position.createdAt, position.id])).toString("base64url")
  return `${payload}.${signatureOf(cursorKey, listing, payload)}`
}

/** The position `text` names, if this server gave it out for `listing`; else 400 InvalidRequest on `cursor`. */
export const decodeCursor = (cursorKey: Uint8Array, listing: string, text: string): Either.Either<CursorPosition, InvalidRequest> => {
  if (text.length > MAX_CURSOR_LENGTH || !CURSOR.test(text)) return Either.left(refused())
  const [payload, signature] = text.split(".") as [string, string]
  // Compared as text: a signature differing only in bits base64url ignores is refused too.
  if (!timingSafeEqual(Buffer.from(signatureOf(cursorKey, listing, payload)), Buffer.from(signature))) return Either.left(refused())
  return Schema.decodeUnknownEither(Payload)(Buffer.from(payload, "base64url").toString("utf8")).pipe(
    Either.map(([createdAt, id]) => ({ createdAt, id })),
    Either.mapLeft(refused)
  )
}

/** Cursors signed with the server's cursor key. */
export class Cursors extends Effect.Service<Cursors>()("pressroom/Cursors", {
  effect: Effect.map(ServerKey, (serverKey) => {
    const cursorKey = serverKey.deriveKey(KEY_LABELS.cursors)
    return {
      encode: (listing: string, position: CursorPosition): string => encodeCursor(cursorKey, listing, position),
      decode: (listing: string, text: string): Effect.Effect<CursorPosition, InvalidRequest> => decodeCursor(cursorKey, listing, text)
    }
  })
}) {}
