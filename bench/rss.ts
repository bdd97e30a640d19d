/** Resident memory as the system counts it, for benchmarks whose work spans processes. */
import { readdirSync, readFileSync } from "node:fs"

/** Resident memory of `pid` and every process descended from it, in bytes. */
export const treeRss = (pid: number): number => {
  const parents = new Map<number, number>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // The parent's pid is the second field after the command, which is in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]))
    } catch {
      // The process ended while the folder was read.
    }
  }
  const inTree = (candidate: number): boolean => {
    for (let at: number | undefined = candidate; at !== undefined && at > 1; at = parents.get(at)) if (at === pid) return true
    return false
  }
  let total = 0
  for (const candidate of parents.keys()) {
    if (!inTree(candidate)) continue
    try {
      const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${candidate}/status`, "utf8"))
      total += Number(match?.[1] ?? 0) * 1024
    } catch {
      // As above.
    }
  }
  return total
}
