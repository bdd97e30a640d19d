/**
 * Which characters the bundled fonts can draw. Typst silently draws a blank box for a character no
 * font covers; we name such characters in a `missing_glyphs` warning instead. The coverage is the
 * one Typst itself computes for each face: run lengths alternating between excluded and included
 * code points, starting at U+0000 with an excluded run.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"

export type Coverage = ReadonlyArray<readonly [start: number, end: number]>

export const coverageFromRuns = (faces: ReadonlyArray<ReadonlyArray<number>>): Coverage => {
  const ranges: Array<[number, number]> = []
  for (const runs of faces) {
    let cursor = 0
    for (let i = 0; i < runs.length; i++) {
      if (i % 2 === 1) ranges.push([cursor, cursor + runs[i]! - 1])
      cursor += runs[i]!
    }
  }
  ranges.sort((a, b) => a[0] - b[0])
  const merged: Array<[number, number]> = []
  for (const range of ranges) {
    const last = merged[merged.length - 1]
    if (last && range[0] <= last[1] + 1) last[1] = Math.max(last[1], range[1])
    else merged.push([range[0], range[1]])
  }
  return merged
}

const covers = (coverage: Coverage, codePoint: number): boolean => {
  let low = 0
  let high = coverage.length - 1
  while (low <= high) {
    const middle = (low + high) >> 1
    const [start, end] = coverage[middle]!
    if (codePoint < start) high = middle - 1
    else if (codePoint > end) low = middle + 1
    else return true
  }
  return false
}

// Characters that are never drawn: white space, controls, joiners and variation selectors.
const INVISIBLE = /[\p{White_Space}\p{Cc}\p{Default_Ignorable_Code_Point}]/u

/** The distinct characters of `text` that no bundled font covers, in order of appearance. */
export const missingCharacters = (text: string, coverage: Coverage): Array<string> => {
  const missing = new Set<string>()
  for (const char of text) {
    if (!covers(coverage, char.codePointAt(0)!) && !INVISIBLE.test(char)) missing.add(char)
  }
  return [...missing]
}

export const describeCharacters = (chars: ReadonlyArray<string>): string =>
  chars
    .slice(0, 20)
    .map((c) => `${c} (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")})`)
    .join(", ") + (chars.length > 20 ? ` and ${chars.length - 20} more` : "")

/**
 * The coverage as `npm run fonts:coverage` recorded it (fonts/coverage.json), for the font set and
 * the typst.ts release it was computed with. The native compiler does not expose coverage, and
 * computing it means starting a WebAssembly compiler (about a CPU-second of every native start), so
 * the package ships it; test/render/native-engine.test.ts compares it with the WebAssembly
 * workers' own.
 */
export interface RecordedCoverage {
  readonly fontSetSha256: string
  /** The version of the typst.ts WebAssembly compiler whose font parsing computed it. */
  readonly typstTs: string
  readonly ranges: Coverage
}

export const coveragePath = (root: string): string => join(root, "fonts", "coverage.json")

/** The recorded coverage when it was computed for this font set and release, else undefined. */
export const recordedCoverage = (root: string, fontSetSha256: string, typstTs: string): Coverage | undefined => {
  const path = coveragePath(root)
  if (!existsSync(path)) return undefined
  const recorded = JSON.parse(readFileSync(path, "utf8")) as RecordedCoverage
  return recorded.fontSetSha256 === fontSetSha256 && recorded.typstTs === typstTs ? recorded.ranges : undefined
}
