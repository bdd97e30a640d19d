/**
 * Which targets of a Markdown or HTML link become links in the PDF: web, mail and telephone
 * addresses (any other scheme, `javascript:` or `file:` among them, leaves the link's text alone),
 * up to the length Typst accepts. Typst refuses a link whose URL is longer than 8,000 bytes ("URL
 * is too long") and with it the whole document; such a link is shown as its text, with a warning.
 */
import { utf8Length } from "./text-runs.ts"

const LINK_SCHEMES = /^(https?:|mailto:|tel:)/i

/** The longest URL, in UTF-8 bytes, that Typst's `link` takes (measured on Typst 0.14.2: 8,000 renders, 8,001 is refused). */
export const MAX_LINK_URL_BYTES = 8000

/** The warning of a link shown as its text because its address is past MAX_LINK_URL_BYTES. */
export const LINK_TOO_LONG = {
  code: "link_too_long",
  message: `a link whose address is longer than ${MAX_LINK_URL_BYTES.toLocaleString("en")} bytes is shown as its text`
} as const

/** What a link to `target` (as written, before trimming) becomes: a link, its text alone, or its text with LINK_TOO_LONG. */
export type ExternalLink = { readonly _tag: "text" } | { readonly _tag: "link" | "tooLong"; readonly url: string }

export const externalLink = (target: string): ExternalLink => {
  const url = target.trim()
  if (!LINK_SCHEMES.test(url)) return { _tag: "text" }
  return { _tag: utf8Length(url) > MAX_LINK_URL_BYTES ? "tooLong" : "link", url }
}
