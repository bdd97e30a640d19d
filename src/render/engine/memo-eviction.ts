/**
 * Evicts Typst's memo cache inside a typst.ts WebAssembly instance, doing what `comemo::evict`
 * does: typst.ts exports nothing that calls it, so without this every distinct document leaves its
 * memoised evaluation and layout behind for the life of the instance (docs/renderer.md, "Typst's memo cache
 * is evicted"). comemo keeps two global structures, both reached here through their static
 * addresses in this exact binary:
 * - EVICTORS, a `parking_lot::RwLock<Vec<fn(usize)>>`: one function per memoised function, which
 *   ages that function's cache entries and drops those older than `maxAge`. They are called through
 *   the function table, which table-export.ts exports;
 * - ACCELERATORS, a `RwLock<(usize, Vec<Mutex<FxHashMap<u128, u128>>>)>`, with the counter ID: one
 *   map of validated calls per tracked value ever created. comemo's own eviction moves the offset
 *   to the counter (every earlier tracked value is gone) and clears each map in place, keeping its
 *   allocation; written here as hashbrown's `clear` writes it.
 * Runs between compiles only, on the worker's one thread, so no lock can be held; the locks are
 * checked anyway, as is everything else `check()` can see, because a wrong address of EVICTORS or
 * ACCELERATORS would corrupt the compiler rather than fail. A wrong counter address cannot make a
 * PDF wrong, since every map is cleared: it can only let the accelerators grow or go unused.
 */

/**
 * After each document, entries the last MEMO_MAX_AGE documents did not use are dropped, so what
 * documents share (the template library, shaped words) stays: with nothing kept a two-page résumé
 * took 63 ms instead of 17 ms (docs/performance.md, "Typst's memo cache is evicted").
 */
export const MEMO_MAX_AGE = 2
/**
 * After a document whose Typst source (UTF-16 code units) is this long, about 15 to 20 pages,
 * nothing is kept: its layout, a hundred MiB or more, would not serve the next document, and the
 * next document's working set reuses that memory instead of growing past it.
 */
export const LARGE_SOURCE_CHARS = 50_000

/** Addresses (bytes into linear memory) of comemo's statics in one typst.ts binary. */
export interface MemoLayout {
  /** EVICTORS, as words: lock, capacity, pointer, length. */
  readonly evictors: number
  /** ACCELERATORS, as words: lock, offset, capacity, pointer, length. */
  readonly accelerators: number
  /** ID, comemo's counter of tracked values, one word. */
  readonly counter: number
}

/**
 * Layouts by the SHA-256 of the released binary (`rendererReleaseChecksum`). A typst.ts upgrade
 * needs its own entry, which `npm run memo-layout` finds and checks; until it has one, the pool
 * runs without eviction and says so (wasm-pool.ts).
 */
export const MEMO_LAYOUTS: Readonly<Record<string, MemoLayout>> = {
  // @myriaddreamin/typst-ts-web-compiler 0.7.0 (Typst 0.14.2, comemo 0.5.0, parking_lot 0.12.5;
  // FxHashMap is the standard library's HashMap, built on the standard library's hashbrown)
  "1fc968438a672366dfec39c96c842c26ed29caff4eb1bcaab19a6c60867de5fd": {
    evictors: 10_300_304,
    accelerators: 10_300_284,
    counter: 10_320_192
  }
}

/** The name under which the pool exports the compiler's function table. */
export const FUNCTION_TABLE_EXPORT = "__pressroom_function_table"

/** An accelerator: `Mutex<FxHashMap<u128, u128>>` in words: mutex (its first byte), control bytes, bucket mask, growth left, items. */
const ACCELERATOR_WORDS = 5
/** hashbrown's control group on wasm32 (the generic 64-bit group): the control bytes end with a copy of the first group. */
const GROUP_WIDTH = 8
const EMPTY = 0xff

/** Whether `bucketMask` is a power of two less one, as every hashbrown table's is. */
const isBucketMask = (bucketMask: number): boolean => (bucketMask & (bucketMask + 1)) === 0
/** A table's control bytes: one per bucket, then the copy of the first group. */
const controlBytes = (bucketMask: number): number => bucketMask + 1 + GROUP_WIDTH
/** How many entries a hashbrown table of `bucketMask + 1` buckets holds before it grows. */
const capacityOf = (bucketMask: number): number => (bucketMask < 8 ? bucketMask : ((bucketMask + 1) / 8) * 7)

export class MemoEvictionError extends Error {
  override readonly name = "MemoEvictionError"
}

export class MemoCache {
  constructor(
    private readonly memory: WebAssembly.Memory,
    private readonly table: WebAssembly.Table,
    private readonly layout: MemoLayout
  ) {}

  /**
   * Throws unless both structures look as comemo leaves them between compiles. Called after a
   * compile, when the caches of the common memoised functions exist.
   */
  check(): void {
    const { evictors, accelerators: acceleratorsAt, counter: counterAt } = this.layout
    for (const [address, bytes] of [
      [evictors, 16],
      [acceleratorsAt, 20],
      [counterAt, 4]
    ] as const) {
      if (address % 4 !== 0 || address < 0 || address + bytes > this.memory.buffer.byteLength)
        this.fail(`the address ${address} is not a word in memory`)
    }
    const words = this.words()
    const { lock, length, functions } = this.evictors(words)
    if (lock !== 0) this.fail("EVICTORS is locked")
    if (length === 0) this.fail("EVICTORS is empty after a compile")
    for (const index of functions) {
      const evictor = index < this.table.length ? this.table.get(index) : null
      if (typeof evictor !== "function" || evictor.length !== 1)
        this.fail(`EVICTORS holds ${index}, which is not a function of one argument`)
    }
    const accelerators = this.accelerators(words)
    if (accelerators.lock !== 0) this.fail("ACCELERATORS is locked")
    const counter = words[this.layout.counter / 4]!
    const singletons = new Set<number>()
    for (let at = accelerators.first, id = accelerators.offset; at < accelerators.end; at += ACCELERATOR_WORDS, id++) {
      const [mutex, control, bucketMask, growthLeft, items] = [
        words[at]! & 0xff,
        words[at + 1]!,
        words[at + 2]!,
        words[at + 3]!,
        words[at + 4]!
      ]
      if (mutex !== 0) this.fail("an accelerator is locked")
      if (!isBucketMask(bucketMask) || items + growthLeft > capacityOf(bucketMask)) this.fail("an accelerator is not a hash table")
      if (bucketMask === 0) singletons.add(control)
      else if (control + controlBytes(bucketMask) > this.memory.buffer.byteLength) this.fail("an accelerator's table is outside memory")
      // An accelerator in use belongs to a tracked value the counter has already counted.
      if (items !== 0 && id >= counter) this.fail("the counter is below an accelerator in use")
    }
    if (singletons.size > 1) this.fail("empty accelerators do not share one control group")
  }

  /** Drops every entry not used in the last `maxAge` evictions (0: all of them), as `comemo::evict(maxAge)`. */
  evict(maxAge: number): void {
    const { lock, functions } = this.evictors(this.words())
    if (lock !== 0) this.fail("EVICTORS is locked")
    for (const index of functions) (this.table.get(index) as (maxAge: number) => void)(maxAge)
    // Views made after the evictors ran: nothing below calls into WebAssembly, so memory cannot grow under them.
    const words = this.words()
    const accelerators = this.accelerators(words)
    if (accelerators.lock !== 0) this.fail("ACCELERATORS is locked")
    words[this.layout.accelerators / 4 + 1] = words[this.layout.counter / 4]!
    const bytes = new Uint8Array(this.memory.buffer)
    for (let at = accelerators.first; at < accelerators.end; at += ACCELERATOR_WORDS) {
      const bucketMask = words[at + 2]!
      // A mask of 0 is the shared empty singleton, which must never be written.
      if (bucketMask === 0 || words[at + 3] === capacityOf(bucketMask)) continue
      const control = words[at + 1]!
      if (!isBucketMask(bucketMask) || control + controlBytes(bucketMask) > bytes.length) this.fail("an accelerator is not a hash table")
      bytes.fill(EMPTY, control, control + controlBytes(bucketMask))
      words[at + 3] = capacityOf(bucketMask)
      words[at + 4] = 0
    }
  }

  private words(): Uint32Array {
    return new Uint32Array(this.memory.buffer)
  }

  private evictors(words: Uint32Array) {
    const at = this.layout.evictors / 4
    const [lock, capacity, pointer, length] = [words[at]!, words[at + 1]!, words[at + 2]!, words[at + 3]!]
    if (length > capacity || pointer + capacity * 4 > words.byteLength) this.fail("EVICTORS is not a vector")
    return { lock, length, functions: Array.from(words.subarray(pointer / 4, pointer / 4 + length)) }
  }

  private accelerators(words: Uint32Array) {
    const at = this.layout.accelerators / 4
    const [lock, offset, capacity, pointer, length] = [words[at]!, words[at + 1]!, words[at + 2]!, words[at + 3]!, words[at + 4]!]
    if (length > capacity || pointer + capacity * ACCELERATOR_WORDS * 4 > words.byteLength) this.fail("ACCELERATORS is not a vector")
    return { lock, offset, first: pointer / 4, end: pointer / 4 + length * ACCELERATOR_WORDS }
  }

  private fail(why: string): never {
    throw new MemoEvictionError(`Typst's memo cache cannot be evicted in this compiler binary: ${why}`)
  }
}
