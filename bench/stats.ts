/** The statistics the benchmarks report. */

/** The q-quantile of `values`, interpolating between the two nearest ranks. */
export const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const position = (sorted.length - 1) * q
  const low = Math.floor(position)
  const high = Math.ceil(position)
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low)
}

export const median = (values: ReadonlyArray<number>): number => quantile(values, 0.5)
