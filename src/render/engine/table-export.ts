/**
 * Adds an export of a WebAssembly module's function table, leaving every other section as it was
 * (those after the export section move by the bytes it grows); and puts a maximum on its memory.
 * typst.ts does not export its table, and the eviction of Typst's memo cache (memo-eviction.ts)
 * calls functions that Typst registered in it. Only the export section changes: the code, data and
 * therefore the PDFs are those of the released binary (the tests compare them with the native
 * compiler's). Written by hand because the libraries that edit modules (binaryen, webassemblyjs)
 * decode and re-encode all 28 MB of it to change one section.
 */

const EXPORT_SECTION = 7
const TABLE_SECTION = 4
const MEMORY_SECTION = 5
const TABLE_KIND = 1
/** Memory limits: a minimum only, or a minimum and a maximum (in 64 KiB pages). */
const LIMITS_MIN = 0x00
const LIMITS_MIN_MAX = 0x01
export const WASM_PAGE_BYTES = 65_536
/** 4 GiB, all that a 32-bit memory can address. */
const MAX_PAGES = 65_536

/** Unsigned LEB128, as the binary format encodes sizes, counts and indices. */
const encodeU32 = (value: number): Array<number> => {
  const bytes: Array<number> = []
  do {
    let byte = value & 0x7f
    value >>>= 7
    if (value !== 0) byte |= 0x80
    bytes.push(byte)
  } while (value !== 0)
  return bytes
}

const decodeU32 = (bytes: Uint8Array, at: number): { readonly value: number; readonly next: number } => {
  let value = 0
  let shift = 0
  let byte: number
  do {
    if (at >= bytes.length || shift > 28) throw new Error("the module is truncated or malformed")
    byte = bytes[at++]!
    value += (byte & 0x7f) * 2 ** shift
    shift += 7
  } while (byte & 0x80)
  return { value, next: at }
}

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00] // "\0asm", version 1

interface Section {
  readonly id: number
  /** Offset of the section's id byte. */
  readonly start: number
  readonly contentStart: number
  readonly end: number
}

const sectionsOf = (binary: Uint8Array): Array<Section> => {
  if (!HEADER.every((byte, i) => binary[i] === byte)) throw new Error("not a WebAssembly module (version 1)")
  const sections: Array<Section> = []
  let at = HEADER.length
  while (at < binary.length) {
    const id = binary[at]!
    const size = decodeU32(binary, at + 1)
    if (size.next + size.value > binary.length) throw new Error("the module is truncated or malformed")
    sections.push({ id, start: at, contentStart: size.next, end: size.next + size.value })
    at = size.next + size.value
  }
  return sections
}

/** `binary` with the section at `section` replaced by one of the same id holding `content`. */
const replaceSection = (binary: Uint8Array, section: Section, content: ReadonlyArray<number>): Uint8Array<ArrayBuffer> => {
  const bytes = Uint8Array.from([section.id, ...encodeU32(content.length), ...content])
  const patched = new Uint8Array(binary.length - (section.end - section.start) + bytes.length)
  patched.set(binary.subarray(0, section.start), 0)
  patched.set(bytes, section.start)
  patched.set(binary.subarray(section.end), section.start + bytes.length)
  return patched
}

/**
 * The module with a maximum on its one memory of `maxBytes` (rounded down to whole pages, and never
 * below the memory's minimum). An allocation that would grow the memory past it fails inside the
 * module: Rust's allocator aborts, the instance traps, and the render fails like any other trap, while
 * it runs rather than after it. Throws if the module defines no memory, more than one, or one that
 * already has a maximum (an imported memory would take its limits from the importer).
 */
export const limitMemory = (binary: Uint8Array, maxBytes: number): Uint8Array<ArrayBuffer> => {
  const memory = sectionsOf(binary).find((section) => section.id === MEMORY_SECTION)
  if (!memory) throw new Error("the module defines no memory")
  const count = decodeU32(binary, memory.contentStart)
  if (count.value !== 1) throw new Error(`the module defines ${count.value} memories`)
  if (binary[count.next] !== LIMITS_MIN) throw new Error("the module's memory already has a maximum or is shared or 64-bit")
  const minimum = decodeU32(binary, count.next + 1)
  const maximum = Math.min(MAX_PAGES, Math.max(minimum.value, Math.floor(maxBytes / WASM_PAGE_BYTES)))
  return replaceSection(binary, memory, [1, LIMITS_MIN_MAX, ...encodeU32(minimum.value), ...encodeU32(maximum)])
}

/** The module with table 0 also exported as `name`; throws if it defines no table or has no exports. */
export const exportFunctionTable = (binary: Uint8Array, name: string): Uint8Array<ArrayBuffer> => {
  const sections = sectionsOf(binary)
  if (!sections.some((section) => section.id === TABLE_SECTION)) throw new Error("the module defines no function table")
  const exports = sections.find((section) => section.id === EXPORT_SECTION)
  if (!exports) throw new Error("the module has no export section")
  const count = decodeU32(binary, exports.contentStart)
  const nameBytes = new TextEncoder().encode(name)
  const content = [
    ...encodeU32(count.value + 1),
    ...binary.subarray(count.next, exports.end),
    ...encodeU32(nameBytes.length),
    ...nameBytes,
    TABLE_KIND,
    ...encodeU32(0)
  ]
  return replaceSection(binary, exports, content)
}
