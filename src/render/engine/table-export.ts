/**
 * Adds an export of a WebAssembly module's function table, leaving every other section as it was
 * (those after the export section move by the bytes it grows).
 * typst.ts does not export its table, and the eviction of Typst's memo cache (memo-eviction.ts)
 * calls functions that Typst registered in it. Only the export section changes: the code, data and
 * therefore the PDFs are those of the released binary (the tests compare them with the native
 * compiler's). Written by hand because the libraries that edit modules (binaryen, webassemblyjs)
 * decode and re-encode all 28 MB of it to change one section.
 */

const EXPORT_SECTION = 7
const TABLE_SECTION = 4
const TABLE_KIND = 1

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
  const section = Uint8Array.from([EXPORT_SECTION, ...encodeU32(content.length), ...content])
  const patched = new Uint8Array(binary.length - (exports.end - exports.start) + section.length)
  patched.set(binary.subarray(0, exports.start), 0)
  patched.set(section, exports.start)
  patched.set(binary.subarray(exports.end), exports.start + section.length)
  return patched
}
