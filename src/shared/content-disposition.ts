/**
 * `Content-Disposition: attachment; filename="…"` (contract section 8 asks for the quoted form), or
 * `inline` for a PDF the dashboard shows in its page.
 * A name outside printable ASCII also gets the RFC 6266 `filename*` with its UTF-8 spelling, and
 * an ASCII fallback in which every other character is `?`.
 */
const rfc5987 = (value: string) => encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

export const contentDisposition = (type: "attachment" | "inline", filename: string): string => {
  const fallback = filename.replace(/[^\x20-\x7e]/g, "?").replace(/["\\]/g, "\\$&")
  const plain = `${type}; filename="${fallback}"`
  return /^[\x20-\x7e]*$/.test(filename) ? plain : `${plain}; filename*=UTF-8''${rfc5987(filename)}`
}

export const attachment = (filename: string): string => contentDisposition("attachment", filename)

/** Every PDF response's `Cache-Control`: no cache, shared or the browser's, keeps a document (issue 30). */
export const PDF_CACHE_CONTROL = "private, no-store"
