/**
 * Reading rendered PDFs back with PDFium, the engine of Chrome's PDF viewer (WebAssembly, from
 * @embedpdf/pdfium): a page's text is FPDFText_GetText over its whole text page, the spaces and
 * line ends PDFium infers included. Two of PDFium's conventions are undone: lines end in "\r\n", and
 * a hyphen that ends a line, soft or not, is U+FFFE with the halves of the word on one line
 * (CPDF_TextPage's CharType::kHyphen); it is given back as a hyphen at a line end, as pdf.js gives a
 * soft one, and test/helpers/words.ts joins it where mupdf's text has a soft hyphen.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { init, type WrappedPdfiumModule } from "@embedpdf/pdfium"

let loaded: Promise<WrappedPdfiumModule> | undefined

const pdfium = (): Promise<WrappedPdfiumModule> => {
  loaded ??= (async () => {
    const wasmBinary = readFileSync(createRequire(import.meta.url).resolve("@embedpdf/pdfium/pdfium.wasm"))
    const module = await init({ wasmBinary: wasmBinary.buffer.slice(wasmBinary.byteOffset, wasmBinary.byteOffset + wasmBinary.byteLength) })
    module.PDFiumExt_Init()
    return module
  })()
  return loaded
}

/** Text of every page (in page order), as PDFium extracts it. */
export const pdfiumPageTexts = async (bytes: Uint8Array): Promise<Array<string>> => {
  const lib = await pdfium()
  const { wasmExports } = lib.pdfium
  const data = wasmExports.malloc(bytes.length)
  // The Emscripten module's heap, read after malloc (a growing heap replaces the view); its type is
  // in @types/emscripten, which the package leaves out.
  const heap = (lib.pdfium as unknown as { HEAPU8: Uint8Array }).HEAPU8
  heap.set(bytes, data)
  const doc = lib.FPDF_LoadMemDocument(data, bytes.length, "")
  try {
    if (doc === 0) throw new Error(`PDFium cannot open the PDF (error ${lib.FPDF_GetLastError()})`)
    const out: Array<string> = []
    for (let i = 0; i < lib.FPDF_GetPageCount(doc); i++) {
      const page = lib.FPDF_LoadPage(doc, i)
      const textPage = lib.FPDFText_LoadPage(page)
      const count = lib.FPDFText_CountChars(textPage)
      // UTF-16 code units, and one more for the terminating zero.
      const buffer = wasmExports.malloc((count + 1) * 2)
      const written = lib.FPDFText_GetText(textPage, 0, count, buffer)
      out.push(
        lib.pdfium
          .UTF16ToString(buffer, Math.max(written - 1, 0) * 2)
          .replace(/\r\n/g, "\n")
          .replace(/\ufffe/g, "-\n")
      )
      wasmExports.free(buffer)
      lib.FPDFText_ClosePage(textPage)
      lib.FPDF_ClosePage(page)
    }
    return out
  } finally {
    if (doc !== 0) lib.FPDF_CloseDocument(doc)
    wasmExports.free(data)
  }
}
