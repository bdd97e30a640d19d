/**
 * HTML made by tagged templates that escape every interpolation (`html\`<p>${name}</p>\``), unless
 * it is itself `Html` (made by `html`, or by `trustedHtml` for markup the server wrote, like an
 * SVG chart). Arrays are joined; null, undefined and false write nothing, so conditionals read
 * naturally. Written here rather than taken from a package: the tagged-template escapers on npm
 * either return plain strings, so that nesting one template in another escapes it twice unless
 * each nesting is marked raw by hand (the easy mistake this exists to prevent), or come with a
 * whole component framework.
 */

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

export type Interpolation = Html | string | number | null | undefined | false | ReadonlyArray<Interpolation>

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

/** `text` safe in element content and in quoted attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)

const write = (value: Interpolation): string => {
  if (value instanceof Html) return value.text
  if (value === null || value === undefined || value === false) return ""
  if (Array.isArray(value)) return value.map(write).join("")
  return escapeHtml(String(value))
}

export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Interpolation>): Html =>
  new Html(strings.reduce((out, string, i) => out + string + (i < values.length ? write(values[i] as Interpolation) : ""), ""))

/** Markup the server itself generated from escaped or numeric parts; never for anything a person typed. */
export const trustedHtml = (text: string): Html => new Html(text)
