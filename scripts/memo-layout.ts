/**
 * npm run memo-layout — finds the addresses of comemo's statics (memo-eviction.ts) in the installed
 * typst.ts WASM binary, checks them, and prints the entry for MEMO_LAYOUTS. Run it after upgrading
 * @myriaddreamin/typst-ts-web-compiler: until the binary has an entry, the pool does not evict.
 *
 * It typesets sample documents in one compiler and compares memory between compiles:
 * - EVICTORS is a vector of functions of one argument in the table, which is filled as documents
 *   use memoised functions for the first time;
 * - ACCELERATORS is a vector of five-word hash tables after an unlocked lock and a zero offset,
 *   which grows with every compile;
 * - ID is the counter that stays at or above ACCELERATORS' length as both grow.
 * Then it evicts with the candidate layout and checks what eviction must do: the memory stops
 * growing, the accelerators stop growing, and a document typeset again gives the same bytes.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { readBundle } from "../src/render/engine/bundle.ts"
import { FUNCTION_TABLE_EXPORT, MEMO_MAX_AGE, MemoCache, type MemoLayout } from "../src/render/engine/memo-eviction.ts"
import { exportFunctionTable } from "../src/render/engine/table-export.ts"
import { startCompiler } from "../src/render/engine/wasm-compiler.ts"
import { compilerRelease } from "../src/render/engine/wasm-pool.ts"
import { packageRoot, verifyFonts } from "../src/render/fonts/manifest.ts"
import { convertHere } from "../src/render/engine/convert.ts"
import { typesetDocument } from "../src/render/engine/typeset.ts"
import { sha256Hex } from "../src/shared/hash.ts"
import { variant } from "../bench/documents.ts"

/** Statics lie between the stack (the first MiB) and the heap, whose blocks lie above them; 32 MiB covers them with room. */
const STATICS = { from: 1 << 20, to: 32 << 20 }

const binary = readFileSync(compilerRelease().binaryPath)
const checksum = sha256Hex(binary)
const module = new WebAssembly.Module(exportFunctionTable(binary, FUNCTION_TABLE_EXPORT))
const compiler = await startCompiler({
  module,
  memoLayout: { evictors: 0, accelerators: 0, counter: 0 },
  fonts: verifyFonts(),
  fontInfos: undefined,
  bundle: readBundle()
})

const example = (id: string) => readFileSync(join(packageRoot, "examples", `${id}.md`), "utf8")
const typeset = async (templateId: string, markdown: string) =>
  (
    await typesetDocument(
      {
        markdown,
        templateId,
        options: { pageNumbers: true, bodyTextColor: null, headingTextColor: null, creativeAccent: "slate" },
        locale: { code: "en", lang: "en", region: null, dir: "ltr" }
      },
      convertHere,
      compiler.compile
    )
  ).pdf
const words = () => new Uint32Array(compiler.memory.buffer)
const snapshot = () => words().slice(STATICS.from / 4, STATICS.to / 4)
const at = (snap: Uint32Array, address: number) => snap[(address - STATICS.from) / 4]!
/** The words of a vector header at `address` in `snap`, and whether its buffer lies in memory above it. */
const vector = (snap: Uint32Array, address: number, elementBytes: number) => {
  const [capacity, pointer, length] = [at(snap, address), at(snap, address + 4), at(snap, address + 8)]
  return {
    length,
    fits:
      length <= capacity && pointer > address && pointer % 4 === 0 && pointer + elementBytes * capacity <= compiler.memory.buffer.byteLength
  }
}

const initial = snapshot()
await typeset("coverletter", example("coverletter"))
const first = snapshot()
for (const id of ["resume", "academic", "legal", "creative"]) await typeset(id, example(id))
const second = snapshot()

// Candidates: an unlocked vector, filled since the start, of functions of one argument in the
// table; and an unlocked vector of five-word records after a zero offset, grown between the two
// snapshots. The memory has not changed since the second snapshot, so the table can be consulted.
// Five documents use dozens of memoised functions and create hundreds of tracked values: the
// floors (8 evictors, 100 accelerators) rule out small vectors that merely grew.
const table = compiler.functionTable
const isEvictor = (index: number) => index > 0 && index < table.length && table.get(index)?.length === 1
const evictors: Array<number> = []
const accelerators: Array<number> = []
for (let address = STATICS.from; address < STATICS.to - 20; address += 4) {
  const functions = vector(second, address + 4, 4)
  if (at(second, address) === 0 && functions.fits && functions.length >= 8 && functions.length > at(initial, address + 12)) {
    const pointer = at(second, address + 8) / 4
    if (Array.from(words().subarray(pointer, pointer + functions.length)).every(isEvictor)) evictors.push(address)
  }
  const maps = vector(second, address + 8, 20)
  if (
    at(second, address) === 0 &&
    at(second, address + 4) === 0 &&
    maps.fits &&
    maps.length >= 100 &&
    maps.length > at(first, address + 16)
  )
    accelerators.push(address)
}
// ID stays at or just above the accelerators' length (the highest ID used, plus one) as both grow,
// so candidates are words that grew with it and stay within a few thousand above it.
const NEAR = 4096
const counters = (acceleratorsAt: number): Array<number> => {
  const length = (snap: Uint32Array) => at(snap, acceleratorsAt + 16)
  const found: Array<{ address: number; margin: number }> = []
  for (let address = STATICS.from; address < STATICS.to; address += 4) {
    if (address >= acceleratorsAt && address < acceleratorsAt + 20) continue
    const [before, after] = [at(first, address) - length(first), at(second, address) - length(second)]
    if (at(second, address) > at(first, address) && before >= 0 && after >= 0 && before + after < NEAR)
      found.push({ address, margin: before + after })
  }
  return found.sort((a, b) => a.margin - b.margin).map((c) => c.address)
}
// The layout is the candidate combination that MemoCache.check() accepts, nearest counter first.
const accepted = (layout: MemoLayout): boolean => {
  try {
    new MemoCache(compiler.memory, compiler.functionTable, layout).check()
    return true
  } catch {
    return false
  }
}
const layouts = accelerators
  .flatMap((a) => {
    const nearest = counters(a)
    return evictors.map((e) => ({
      evictors: e,
      accelerators: a,
      counter: nearest.find((c) => accepted({ evictors: e, accelerators: a, counter: c }))
    }))
  })
  .filter((layout): layout is MemoLayout => layout.counter !== undefined)
if (layouts.length !== 1)
  throw new Error(
    `expected one layout that check() accepts, found ${layouts.length}: ${JSON.stringify({ evictors, accelerators, layouts })}`
  )
const layout = layouts[0]!
const acceleratorLength = () => words()[layout.accelerators / 4 + 4]!

// What eviction must do with this layout.
const memo = new MemoCache(compiler.memory, compiler.functionTable, layout)
memo.check()
const letter = example("coverletter")
const before = await typeset("coverletter", variant(letter, 0))
const sizes: Array<number> = []
for (let k = 1; k <= 60; k++) {
  await typeset("coverletter", variant(letter, k))
  memo.evict(MEMO_MAX_AGE)
  sizes.push(compiler.memoryBytes())
}
const grew = sizes[59]! - sizes[19]!
const accelerated = acceleratorLength()
await typeset("coverletter", variant(letter, 61))
memo.evict(0)
const same = Buffer.from(await typeset("coverletter", variant(letter, 0))).equals(Buffer.from(before))
const bounded = acceleratorLength() === accelerated
console.log(
  JSON.stringify({ checksum, layout, memoryGrowthOver40Letters: grew, acceleratorsBounded: bounded, sameBytesAfterEviction: same }, null, 2)
)
// Without eviction the 40 letters grow the memory by about 4.5 MiB; with it, by nothing.
if (grew > 1 << 20 || !same || !bounded) process.exit(1)
