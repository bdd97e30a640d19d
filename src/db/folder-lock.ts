/**
 * One process at a time on an embedded database folder. PGlite is a database inside its process:
 * a second process that opened the same files would write beside the first, and what it wrote
 * (a revoked key, a new account) would be lost or would corrupt them. So the opener writes its
 * PID to `<folder>.pid`, created exclusively; another opener reads it and is refused while that
 * process lives. A holder killed without a chance to remove the file (kill -9) leaves a PID that
 * no process has: the next opener takes the folder over at once.
 *
 * Why not a lock library such as proper-lockfile: its lock names no holder (the refusal must say
 * which process holds the folder), and it recognises a dead holder only once the lock has gone
 * unrefreshed for its staleness period, while a liveness check of the PID knows at once. The one
 * error this design can make is to take a PID reused by an unrelated live process for the holder:
 * a refusal, never two writers.
 */
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs"

export class FolderInUse extends Error {
  constructor(
    readonly folder: string,
    readonly holder: number
  ) {
    super(
      `the embedded database ${folder} is in use by process ${holder}: while it runs, manage accounts, keys and credits through its admin API (/admin/…); stop it before audit or migrate`
    )
  }
}

/** Folders this process holds: a second open from within it is refused too. */
const held = new Set<string>()

const lockFileOf = (folder: string) => `${folder}.pid`

/** The PID a lock file names; undefined when it is gone or holds no PID. */
const holderOf = (file: string): number | undefined => {
  try {
    const pid = Number.parseInt(readFileSync(file, "utf8"), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw error
  }
}

/** Whether a process has exited but is not yet reaped by its parent (Linux): it holds nothing. */
const isZombie = (pid: number) => {
  try {
    return /^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return !isZombie(pid)
  } catch (error) {
    // EPERM: the process exists, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The live process other than this one that holds `folder`, if any. */
export const holderOfFolder = (folder: string): number | undefined => {
  if (held.has(folder)) return process.pid
  const holder = holderOf(lockFileOf(folder))
  // A file naming this process was left by an earlier process under the same PID (a container's PID 1).
  return holder !== undefined && holder !== process.pid && isAlive(holder) ? holder : undefined
}

/** Takes `folder` for this process, or throws `FolderInUse`; answers the release. */
export const lockFolder = (folder: string): (() => void) => {
  const file = lockFileOf(folder)
  for (let attempt = 0; attempt < 5; attempt++) {
    const holder = holderOfFolder(folder)
    if (holder !== undefined) throw new FolderInUse(folder, holder)
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: "wx" })
      held.add(folder)
      return () => {
        held.delete(folder)
        if (holderOf(file) === process.pid) unlinkSync(file)
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
    // The file names a process that is gone, unless another opener wrote it just now. Moving it
    // aside is atomic: of two processes taking over at once, one moves it and the other finds it
    // gone and tries again. A file that names a live process after all is put back (by a link,
    // which replaces nothing) and refuses this open on the next round.
    const aside = `${file}.${process.pid}.stale`
    try {
      renameSync(file, aside)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue
      throw error
    }
    const moved = holderOf(aside)
    if (moved !== undefined && moved !== process.pid && isAlive(moved)) {
      try {
        linkSync(aside, file)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      }
    }
    unlinkSync(aside)
  }
  throw new Error(`the embedded database ${folder} could not be locked: other processes keep taking it over`)
}
