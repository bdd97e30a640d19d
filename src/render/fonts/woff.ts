/**
 * WOFF 1 to the OpenType file it wraps (W3C WOFF File Format 1.0, section 4-6): a header, a table
 * directory and each table zlib-compressed unless compressing did not shrink it. The sfnt is
 * rebuilt with its tables in the directory's (tag) order, each at a 4-byte boundary, and the
 * original checksums, so the same WOFF always gives the same bytes: the manifest pins their hash.
 * Some fonts (STIX Two Math) are published on npm only as WOFF, which Typst does not read.
 */
import { inflateSync } from "node:zlib"

const WOFF_SIGNATURE = 0x774f4646 // "wOFF"
const HEADER_SIZE = 44
const DIRECTORY_ENTRY_SIZE = 20

interface Table {
  readonly tag: number
  readonly checksum: number
  readonly data: Buffer
}

export const decodeWoff = (woff: Uint8Array): Buffer => {
  const input = Buffer.from(woff.buffer, woff.byteOffset, woff.byteLength)
  if (input.length < HEADER_SIZE || input.readUInt32BE(0) !== WOFF_SIGNATURE) throw new Error("not a WOFF 1 file")
  const flavor = input.readUInt32BE(4)
  const numTables = input.readUInt16BE(12)
  const tables: Array<Table> = []
  for (let i = 0; i < numTables; i++) {
    const at = HEADER_SIZE + i * DIRECTORY_ENTRY_SIZE
    const offset = input.readUInt32BE(at + 4)
    const compLength = input.readUInt32BE(at + 8)
    const origLength = input.readUInt32BE(at + 12)
    const stored = input.subarray(offset, offset + compLength)
    const data = compLength < origLength ? inflateSync(stored) : Buffer.from(stored)
    if (data.length !== origLength) throw new Error("a WOFF table does not decode to its stated length")
    tables.push({ tag: input.readUInt32BE(at), checksum: input.readUInt32BE(at + 16), data })
  }
  tables.sort((a, b) => a.tag - b.tag)
  // The sfnt offset table's binary-search fields (OpenType spec, "Table directory").
  const entrySelector = Math.floor(Math.log2(numTables))
  const searchRange = 2 ** entrySelector * 16
  const headerLength = 12 + numTables * 16
  const padded = (n: number) => (n + 3) & ~3
  const total = tables.reduce((sum, table) => sum + padded(table.data.length), headerLength)
  const out = Buffer.alloc(total)
  out.writeUInt32BE(flavor, 0)
  out.writeUInt16BE(numTables, 4)
  out.writeUInt16BE(searchRange, 6)
  out.writeUInt16BE(entrySelector, 8)
  out.writeUInt16BE(numTables * 16 - searchRange, 10)
  let offset = headerLength
  for (const [i, table] of tables.entries()) {
    const record = 12 + i * 16
    out.writeUInt32BE(table.tag, record)
    out.writeUInt32BE(table.checksum, record + 4)
    out.writeUInt32BE(offset, record + 8)
    out.writeUInt32BE(table.data.length, record + 12)
    table.data.copy(out, offset)
    offset += padded(table.data.length)
  }
  return out
}
