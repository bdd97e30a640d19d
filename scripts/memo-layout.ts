/**
 * npm run memo-layout — finds the addresses of comemo's statics (memo-eviction.ts) in the installed
 * typst.ts WASM binary, checks them, and prints the entry for MEMO_LAYOUTS. Run it after upgrading
 * @myriaddreamin/typst-ts-web-compiler; the pool refuses a binary without an entry.
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
import { createRequire } from "node:module"
import { join } from "node:path"
import { readBundle } from "../src/render/engine/bundle.ts"
import { FUNCTION_TABLE_EXPORT, MemoCache, type MemoLayout } from "../src/render/engine/memo-eviction.ts"
import { exportFunctionTable } from "../src/render/engine/table-export.ts"
import { startCompiler } from "../src/render/engine/wasm-compiler.ts"
import { repositoryRoot, verifyFonts } from "../src/render/fonts/manifest.ts"
import { typesetDocument } from "../src/render/typeset.ts"
import { sha256Hex } from "../src/shared/hash.ts"
import { variant } from "../bench/documents.ts"

/** Statics lie between the stack (the first MiB) and the heap, whose blocks lie above them; 32 MiB covers them with room. */
const STATICS = { from: 1 << 20, to: 32 << 20 }

const require = createRequire(join(repositoryRoot, "package.json"))
const binary = readFileSync(require.resolve("@myriaddreamin/typst-ts-web-compiler/pkg/typst_ts_web_compiler_bg.wasm"))
const checksum = sha256Hex(binary)
const module = new WebAssembly.Module(exportFunctionTable(binary, FUNCTION_TABLE_EXPORT))
const compiler = await startCompiler({ module, memoLayout: { evictors: 0, accelerators: 0, acceleratorId: 0 }, fonts: verifyFonts(), fontInfos: undefined, bundle: readBundle() })

const example = (id: string) => readFileSync(join(repositoryRoot, "examples", `${id}.md`), "utf8")
const typeset = (templateId: string, markdown: string) =>
  typesetDocument({
    markdown,
    templateId,
    options: { pageNumbers: true, bodyTextColor: null, headingTextColor: null, creativeAccent: "slate" },
    locale: { code: "en", lang: "en", region: null, dir: "ltr" }
  }, compiler.compile).pdf
const words = () => new Uint32Array(compiler.memory.buffer)
const snapshot = () => words().slice(STATICS.from / 4, STATICS.to / 4)
const at = (snap: Uint32Array, address: number) => snap[(address - STATICS.from) / 4]!

const initial = snapshot()
typeset("coverletter", example("coverletter"))
const first = snapshot()
for (const id of ["resume", "academic", "legal", "creative"]) typeset(id, example(id))
const second = snapshot()

const isEvictor = (index: number) => {
  const fn = index < compiler.functionTable.length ? compiler.functionTable.get(index) : null
  return typeof fn === "function" && fn.length === 1
}

const memory = words()
/** Whether `count` five-word records from word `first` are hash tables, the empty ones sharing one control group. */
const hashTables = (first: number, count: number): boolean => {
  const singletons = new Set<number>()
  for (let i = 0; i < count; i++) {
    const [mutex, control, mask, left, items] = memory.subarray(first + 5 * i, first + 5 * i + 5)
    if ((mutex! & 0xff) !== 0 || (mask! & (mask! + 1)) !== 0 || items! + left! > mask! + 1) return false
    if (mask === 0) singletons.add(control!)
  }
  return singletons.size === 1
}

const evictors: Array<number> = []
const accelerators: Array<number> = []
for (let address = STATICS.from; address < STATICS.to - 20; address += 4) {
  // [lock, capacity, pointer, length] of a vector of evictors that grew between the snapshots
  const [lock, capacity, pointer, length] = [0, 1, 2, 3].map((i) => at(second, address + 4 * i)) as [number, number, number, number]
  const earlierLength = at(initial, address + 12)
  if (lock === 0 && length >= 8 && length <= capacity && length > earlierLength && pointer > address && pointer % 4 === 0 && pointer + 4 * capacity <= memory.byteLength) {
    const entries = memory.subarray(pointer / 4, pointer / 4 + length)
    if (new Set(entries).size === length && entries.every(isEvictor)) evictors.push(address)
  }
  // [lock, offset, capacity, pointer, length] of a growing vector of five-word hash tables
  const [aLock, offset, aCapacity, aPointer, aLength] = [0, 1, 2, 3, 4].map((i) => at(second, address + 4 * i)) as [number, number, number, number, number]
  if (aLock === 0 && offset === 0 && aLength >= 100 && aLength <= aCapacity && aLength > at(first, address + 16) && aPointer > address && aPointer % 4 === 0 && aPointer + 20 * aCapacity <= memory.byteLength) {
    if (hashTables(aPointer / 4, aLength)) accelerators.push(address)
  }
}
if (evictors.length !== 1 || accelerators.length !== 1) {
  throw new Error(`expected one EVICTORS and one ACCELERATORS, found ${evictors.length} and ${accelerators.length}: ${JSON.stringify({ evictors, accelerators })}`)
}
const acceleratorLength = (snap: Uint32Array) => at(snap, accelerators[0]! + 16)
// ID counts every tracked value ever made, so it stays at or just above the accelerators' length,
// which is the highest ID used plus one: the static counter closest above it, in both snapshots.
const heapStart = Math.min(at(second, evictors[0]! + 8), at(second, accelerators[0]! + 12))
const structures = new Set([0, 1, 2, 3].map((i) => evictors[0]! + 4 * i).concat([0, 1, 2, 3, 4].map((i) => accelerators[0]! + 4 * i)))
const ids: Array<{ address: number; margin: number }> = []
for (let address = STATICS.from; address < heapStart; address += 4) {
  const [before, after] = [at(first, address), at(second, address)]
  if (structures.has(address) || after <= before || before < acceleratorLength(first) || after < acceleratorLength(second)) continue
  ids.push({ address, margin: after - acceleratorLength(second) + before - acceleratorLength(first) })
}
ids.sort((a, b) => a.margin - b.margin)
if (ids.length === 0) throw new Error("found no accelerator counter")
const layout: MemoLayout = { evictors: evictors[0]!, accelerators: accelerators[0]!, acceleratorId: ids[0]!.address }

// What eviction must do with this layout.
const memo = new MemoCache(compiler.memory, compiler.functionTable, layout)
memo.check()
const letter = example("coverletter")
const before = typeset("coverletter", variant(letter, 0))
const sizes: Array<number> = []
for (let k = 1; k <= 60; k++) {
  typeset("coverletter", variant(letter, k))
  memo.evict(2)
  sizes.push(compiler.memoryBytes())
}
const grew = sizes[59]! - sizes[19]!
const accelerated = acceleratorLength(snapshot())
typeset("coverletter", variant(letter, 61))
memo.evict(0)
const same = Buffer.from(typeset("coverletter", variant(letter, 0))).equals(Buffer.from(before))
const bounded = acceleratorLength(snapshot()) === accelerated
console.log(JSON.stringify({ checksum, layout, memoryGrowthOver40Letters: grew, acceleratorsBounded: bounded, sameBytesAfterEviction: same }, null, 2))
if (grew > 4 << 20 || !same || !bounded) process.exit(1)
