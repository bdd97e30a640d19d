/**
 * The name a PDF is downloaded under (`Content-Disposition`, contract section 8): one a browser can
 * save as it is shown. An unusable one is 422 (contract section 3) through `decodeContent`.
 */
import { Schema } from "effect"

const unusable = (problem: string) => ({ message: () => `unusable filename: ${problem}` })

// C0 and C1 controls: none prints, and a header or a file system may cut the name at one.
const CONTROL = /[\0-\x1f\x7f-\x9f]/
// Embeddings, overrides, isolates and marks reorder what is shown: "a\u202eFDP.exe" shows as "aexe.PDF".
const BIDI_FORMATTING = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/
// In a `u` pattern, \p{Cs} matches only a surrogate that is not half of a pair; it has no UTF-8 form.
const UNPAIRED_SURROGATE = /\p{Cs}/u

export const UsableFilename = Schema.String.pipe(
  Schema.filter((name) => name.length >= 1 && name.length <= 200, unusable("must be 1 to 200 characters")),
  // "." and ".." name folders, and Windows drops trailing dots, leaving nothing of "...".
  Schema.filter((name) => !/^\.+$/.test(name), unusable("must not be only dots")),
  Schema.filter((name) => !CONTROL.test(name), unusable("must not contain control characters")),
  Schema.filter((name) => !BIDI_FORMATTING.test(name), unusable("must not contain bidirectional formatting characters")),
  Schema.filter((name) => !/[/\\]/.test(name), unusable("must not contain path separators")),
  Schema.filter((name) => !UNPAIRED_SURROGATE.test(name), unusable("must not contain an unpaired surrogate"))
)
