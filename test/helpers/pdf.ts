/**
 * Reading rendered PDFs back with mupdf: text, pages, fonts per character, colours, links,
 * outline, metadata and images. Everything a reader of the PDF would notice. pdf.js (the reader
 * inside Firefox) gives a second, independent reading of the text.
 */
import * as mupdf from "mupdf"
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs"

export interface PdfChar {
  readonly c: string
  readonly font: string
  readonly size: number
  /** Fill colour as mupdf reports it (components 0..1 in the device space). */
  readonly color: ReadonlyArray<number>
  readonly page: number
  /** Horizontal extent of the glyph on the page, in points. */
  readonly x0: number
  readonly x1: number
  readonly y: number
}

export const openPdf = (bytes: Uint8Array): mupdf.Document => mupdf.Document.openDocument(bytes, "application/pdf")

export const pageCount = (bytes: Uint8Array): number => openPdf(bytes).countPages()

/** Text of every page (in page order), as mupdf extracts it. */
export const pageTexts = (bytes: Uint8Array): Array<string> => {
  const doc = openPdf(bytes)
  const out: Array<string> = []
  for (let i = 0; i < doc.countPages(); i++) {
    out.push(doc.loadPage(i).toStructuredText("preserve-whitespace").asText())
  }
  return out
}

/** Text of every page as pdf.js extracts it: its text items, with a line end where it ends a line. */
export const pdfjsPageTexts = async (bytes: Uint8Array): Promise<Array<string>> => {
  // pdf.js takes ownership of the buffer it is given.
  const doc = await pdfjs.getDocument({ data: bytes.slice(), verbosity: pdfjs.VerbosityLevel.ERRORS }).promise
  try {
    const out: Array<string> = []
    for (let i = 1; i <= doc.numPages; i++) {
      const { items } = await (await doc.getPage(i)).getTextContent()
      out.push(items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join(""))
    }
    return out
  } finally {
    await doc.destroy()
  }
}

/** All text, whitespace collapsed to single spaces. */
export const pdfText = (bytes: Uint8Array): string => normalize(pageTexts(bytes).join("\n"))

/** Collapses every run of white space (including NBSP and line breaks) to one space. */
export const normalize = (text: string): string => text.replace(/[\s\u00a0\u200b]+/gu, " ").trim()

/** Text with all white space removed: for payloads whose spacing extraction may change. */
export const squash = (text: string): string => text.replace(/[\s\u00a0\u200b\u00ad]+/gu, "")

/** Every character drawn, with its font, size and colour. */
export const pdfChars = (bytes: Uint8Array): Array<PdfChar> => {
  const doc = openPdf(bytes)
  const chars: Array<PdfChar> = []
  for (let i = 0; i < doc.countPages(); i++) {
    doc
      .loadPage(i)
      .toStructuredText("preserve-whitespace")
      .walk({
        onChar(c, origin, font, size, quad, color) {
          const xs = [quad[0], quad[2], quad[4], quad[6]]
          chars.push({ c, font: font.getName(), size, color: [...color], page: i, x0: Math.min(...xs), x1: Math.max(...xs), y: origin[1] })
        }
      })
  }
  return chars
}

/** Names of the fonts that draw any character (subset prefixes like "ABCDEF+" removed). */
export const fontNames = (bytes: Uint8Array): Array<string> => [...new Set(pdfChars(bytes).map((ch) => stripSubset(ch.font)))].sort()

export const stripSubset = (name: string): string => name.replace(/^[A-Z]{6}\+/, "")

/** The font (subset prefix removed) used for each drawn occurrence of `char`. */
export const fontsOf = (chars: ReadonlyArray<PdfChar>, char: string): Array<string> => [
  ...new Set(chars.filter((ch) => ch.c === char).map((ch) => stripSubset(ch.font)))
]

/** BaseFont names declared in the PDF's font dictionaries (embedded fonts). */
export const declaredFonts = (bytes: Uint8Array): Array<string> => {
  const text = Buffer.from(bytes).toString("latin1")
  return [...new Set([...text.matchAll(/\/BaseFont\s*\/([^\s/<>[\]()]+)/g)].map((m) => stripSubset(m[1]!)))].sort()
}

export const pageSizes = (bytes: Uint8Array): Array<{ width: number; height: number }> => {
  const doc = openPdf(bytes)
  const out = []
  for (let i = 0; i < doc.countPages(); i++) {
    const [x0, y0, x1, y1] = doc.loadPage(i).getBounds()
    out.push({ width: x1 - x0, height: y1 - y0 })
  }
  return out
}

export const linkUris = (bytes: Uint8Array): Array<string> => {
  const doc = openPdf(bytes)
  const out: Array<string> = []
  for (let i = 0; i < doc.countPages(); i++) {
    for (const link of doc.loadPage(i).getLinks()) out.push(link.getURI())
  }
  return out
}

/** The page (from 1) each link of the document goes to, in order; null for a link that leaves it. */
export const linkPages = (bytes: Uint8Array): Array<number | null> => {
  const doc = openPdf(bytes)
  const out: Array<number | null> = []
  for (let i = 0; i < doc.countPages(); i++) {
    for (const link of doc.loadPage(i).getLinks()) out.push(link.isExternal() ? null : doc.resolveLink(link.getURI()) + 1)
  }
  return out
}

export interface OutlineEntry {
  readonly title: string
  readonly depth: number
}

export const outline = (bytes: Uint8Array): Array<OutlineEntry> => {
  const out: Array<OutlineEntry> = []
  const walk = (items: ReadonlyArray<{ title?: string | undefined; down?: Array<unknown> }> | null | undefined, depth: number) => {
    for (const item of items ?? []) {
      out.push({ title: normalize(item.title ?? ""), depth })
      walk(item.down as never, depth + 1)
    }
  }
  walk(openPdf(bytes).loadOutline() as never, 0)
  return out
}

export const metadata = (bytes: Uint8Array, key: string): string | undefined => openPdf(bytes).getMetaData(key)

/** Number of image blocks mupdf finds, per page. */
export const imageCounts = (bytes: Uint8Array): Array<number> => {
  const doc = openPdf(bytes)
  const out: Array<number> = []
  for (let i = 0; i < doc.countPages(); i++) {
    let n = 0
    doc
      .loadPage(i)
      .toStructuredText("preserve-images")
      .walk({
        onImageBlock() {
          n++
        }
      })
    out.push(n)
  }
  return out
}

/** What a page draws: filled/stroked paths and images (SVG images become paths in Typst's PDF). */
export const drawCounts = (bytes: Uint8Array, page = 0): { paths: number; images: number } => {
  const counts = { paths: 0, images: 0 }
  const device = new mupdf.Device({
    fillPath() {
      counts.paths++
    },
    strokePath() {
      counts.paths++
    },
    fillImage() {
      counts.images++
    }
  })
  openPdf(bytes).loadPage(page).run(device, mupdf.Matrix.identity)
  device.close()
  return counts
}

export const vectorCount = (bytes: Uint8Array, page = 0): number => drawCounts(bytes, page).paths

/** True when mupdf can open the bytes as a PDF with at least one page. */
export const isValidPdf = (bytes: Uint8Array): boolean => {
  try {
    return Buffer.from(bytes.subarray(0, 5)).toString("latin1") === "%PDF-" && openPdf(bytes).countPages() >= 1
  } catch {
    return false
  }
}
