/**
 * Text a client sends that PostgreSQL cannot hold as it is. A JSON string may carry U+0000, which
 * `text` and `jsonb` refuse, and an unpaired surrogate (`"\ud800"`), which is no character and has
 * no UTF-8 form: a driver would silently write U+FFFD for it in `text` and `jsonb` refuses its
 * escape. Markdown is read as CommonMark reads it, both becoming U+FFFD (`asCommonMark`); a name
 * or other text kept as sent must hold neither (`StoredText`, a 422 through `decodeContent`).
 */
import { Schema } from "effect"

// In a `u` pattern, \p{Cs} matches only a surrogate that is not half of a pair.
const UNSTORABLE = /[\0\p{Cs}]/u
const EVERY_UNSTORABLE = /[\0\p{Cs}]/gu

/** Whether `text` is free of NUL and unpaired surrogates. */
export const isStorable = (text: string): boolean => !UNSTORABLE.test(text)

/**
 * `text` with each NUL and unpaired surrogate replaced by U+FFFD, as CommonMark reads U+0000 (an
 * unpaired surrogate has no character to read). Each is one UTF-16 unit, as U+FFFD is, so lengths
 * do not change.
 */
export const asCommonMark = (text: string): string => (isStorable(text) ? text : text.replace(EVERY_UNSTORABLE, "\ufffd"))

/** Markdown as a request carries it, decoded to the text a job stores, hashes and renders. */
export const CommonMarkText = Schema.transform(Schema.String, Schema.String, {
  strict: true,
  decode: asCommonMark,
  encode: (text) => text
})

/** Text kept as sent (a name): no NUL and no unpaired surrogate. */
export const StoredText = Schema.String.pipe(
  Schema.filter(isStorable, { message: () => "must not contain U+0000 or an unpaired surrogate (\\uD800 to \\uDFFF alone)" })
)

/**
 * At most `max` UTF-16 units of client text, for quoting in a message: never half of a surrogate
 * pair, and with NUL, unpaired surrogates and other control characters shown as U+FFFD, since a
 * message may be stored (an idempotency record keeps the errors it replays).
 */
export const excerpt = (text: string, max: number): string => {
  const cut = text.length > max ? text.slice(0, /[\ud800-\udbff]/.test(text[max - 1] ?? "") ? max - 1 : max) : text
  return cut.replace(/[\0-\x1f\x7f-\x9f\p{Cs}]/gu, "\ufffd")
}
