/**
 * exportFunctionTable adds an export of a module's function table and changes nothing else, shown on
 * a module small enough to write out byte by byte; limitMemory puts a maximum on its memory.
 */
import t from "tap"
import { exportFunctionTable, limitMemory, WASM_PAGE_BYTES } from "../../src/render/engine/table-export.ts"

const section = (id: number, ...content: Array<number>) => [id, content.length, ...content]
const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]
const TYPES = section(1, 1, 0x60, 1, 0x7f, 0) // one type: (i32) -> ()
const FUNCTIONS = section(3, 1, 0) // one function of that type
const TABLE = section(4, 1, 0x70, 0, 1) // a funcref table of one element
const EXPORTS = section(7, 1, 1, 0x66, 0, 0) // "f": function 0
const ELEMENTS = section(9, 1, 0, 0x41, 0, 0x0b, 1, 0) // table[0] = function 0
const CODE = section(10, 1, 2, 0, 0x0b) // an empty body

const module = (...sections: Array<Array<number>>) => Uint8Array.from([...HEADER, ...sections.flat()])

t.test("the table is exported beside the existing exports", async (t) => {
  const original = module(TYPES, FUNCTIONS, TABLE, EXPORTS, ELEMENTS, CODE)
  const patched = exportFunctionTable(original, "table")
  t.same(
    WebAssembly.Module.exports(new WebAssembly.Module(patched)),
    [
      { name: "f", kind: "function" },
      { name: "table", kind: "table" }
    ],
    "the old export and the table"
  )
  const instance = new WebAssembly.Instance(new WebAssembly.Module(patched))
  const table = instance.exports.table as WebAssembly.Table
  t.equal(table.get(0), instance.exports.f, "the table holds the module's own function")
  t.same(
    patched.subarray(0, 8 + TYPES.length + FUNCTIONS.length + TABLE.length),
    original.subarray(0, 8 + TYPES.length + FUNCTIONS.length + TABLE.length),
    "the sections before the exports are untouched"
  )
  const after = ELEMENTS.length + CODE.length
  t.same(patched.subarray(patched.length - after), original.subarray(original.length - after), "and so are those after them")
})

t.test("sizes and counts that need another byte are written longer", async (t) => {
  // 127 exports of function 0 ("a0" ... "a126"), about 780 bytes: the count becomes 128, which
  // takes two bytes, as the section's size already does.
  const names = Array.from({ length: 127 }, (_, i) => [...new TextEncoder().encode(`a${i}`)])
  const entries = names.flatMap((name) => [name.length, ...name, 0, 0])
  const content = [127, ...entries]
  const exports = [7, ...[(content.length & 0x7f) | 0x80, content.length >> 7], ...content]
  const patched = exportFunctionTable(module(TYPES, FUNCTIONS, TABLE, exports, ELEMENTS, CODE), "table")
  const listed = WebAssembly.Module.exports(new WebAssembly.Module(patched))
  t.equal(listed.length, 128, "all 128 exports")
  t.same(listed[127], { name: "table", kind: "table" }, "the table last")
})

t.test("a module without a table or without exports, or not a module, is refused", async (t) => {
  t.throws(() => exportFunctionTable(module(TYPES, FUNCTIONS, EXPORTS, CODE), "table"), /defines no function table/)
  t.throws(() => exportFunctionTable(module(TYPES, FUNCTIONS, TABLE, ELEMENTS, CODE), "table"), /no export section/)
  t.throws(() => exportFunctionTable(Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 1, 1, 1, 0]), "table"), /not a WebAssembly module/)
  const whole = module(TYPES, FUNCTIONS, TABLE, EXPORTS, ELEMENTS, CODE)
  t.throws(() => exportFunctionTable(whole.subarray(0, whole.length - 3), "table"), /truncated/)
})

const MEMORY = section(5, 1, 0, 1) // one memory of at least one page, no maximum
const MEMORY_EXPORT = section(7, 1, 3, 0x6d, 0x65, 0x6d, 2, 0) // "mem": memory 0

t.test("limitMemory puts a maximum on the memory: growing past it fails, below it succeeds", async (t) => {
  const original = module(MEMORY, MEMORY_EXPORT)
  const limited = limitMemory(original, 3 * WASM_PAGE_BYTES + 100)
  const memory = new WebAssembly.Instance(new WebAssembly.Module(limited)).exports.mem as WebAssembly.Memory
  t.equal(memory.grow(2), 1, "up to three pages")
  t.throws(() => memory.grow(1), RangeError, "not a fourth")
  const unlimited = new WebAssembly.Instance(new WebAssembly.Module(original)).exports.mem as WebAssembly.Memory
  t.equal(unlimited.grow(10), 1, "the original grows on")
  t.same(limited.subarray(limited.length - MEMORY_EXPORT.length), Uint8Array.from(MEMORY_EXPORT), "the exports are untouched")
})

t.test("limitMemory never sets a maximum below the minimum, nor above 4 GiB", async (t) => {
  const below = new WebAssembly.Instance(new WebAssembly.Module(limitMemory(module(MEMORY, MEMORY_EXPORT), 0))).exports
    .mem as WebAssembly.Memory
  t.equal(below.buffer.byteLength, WASM_PAGE_BYTES, "the one page it needs")
  t.throws(() => below.grow(1), RangeError, "and no more")
  t.doesNotThrow(() => new WebAssembly.Module(limitMemory(module(MEMORY, MEMORY_EXPORT), 2 ** 40)), "a valid module")
})

t.test("limitMemory refuses a module without a memory or whose memory has a maximum", async (t) => {
  t.throws(() => limitMemory(module(TYPES, FUNCTIONS, EXPORTS, CODE), 2 ** 20), /defines no memory/)
  t.throws(() => limitMemory(module(section(5, 1, 1, 1, 2)), 2 ** 20), /already has a maximum/)
})
