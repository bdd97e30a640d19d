/**
 * What a bundle was made from, so that a start can tell whether it is current without running
 * esbuild. A record holds, for every file esbuild read, for every folder between that file and the
 * checkout (its own folder only, outside the checkout) and for the package.json, tsconfig.json and
 * jsconfig.json of each such folder and of the checkout, a signature: size, modification time,
 * change time and inode, or "absent". The caller adds its own files and esbuild's package.json.
 * - A folder's times change when an entry is added, removed or renamed in it, so a new file that
 *   would now be resolved first (w.js beside w.ts, a nested node_modules, a package.json) is seen.
 * - The change time cannot be set back, unlike the modification time that rsync -t, cp -p or tar
 *   restore, and a save by renaming gives a new inode.
 * - A build is recorded only if none of these changed within RECENT_MS before it started, on the
 *   file system's own clock (NFS and bind mounts may differ from the process's): a file saved
 *   while esbuild read it would otherwise be recorded with bytes the bundle does not hold.
 * Not seen: a package linked from outside the checkout (npm link) whose link is pointed elsewhere,
 * and a file that a tsconfig.json "extends" (this checkout's has none).
 */
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs"
import { dirname, isAbsolute, join, relative, resolve } from "node:path"

/** A build from a file changed less than this before it started is not recorded. */
const RECENT_MS = 2_000

/** The files that decide how esbuild resolves and compiles the files of a folder. */
const SETTINGS = ["package.json", "tsconfig.json", "jsconfig.json"]

const statsOf = (path) => {
  try {
    // A quarter of the paths a build depends on are settings files that do not exist: no exception each.
    return statSync(path, { throwIfNoEntry: false })
  } catch {
    return undefined // unreadable, or a folder on its path replaced by a file: counts as absent
  }
}

const signature = (path) => {
  const stats = statsOf(path)
  return stats ? { text: `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}`, ctimeMs: stats.ctimeMs } : { text: "absent", ctimeMs: -Infinity }
}

const isOutside = (root, path) => {
  const rel = relative(root, path)
  return rel.startsWith("..") || isAbsolute(rel)
}

/** Every path whose signature a build from `inputs` depends on, relative to `root`: see the header. */
const dependencies = (root, inputs) => {
  const folders = new Set([root])
  for (const input of inputs) {
    let folder = dirname(resolve(root, input))
    if (isOutside(root, folder)) folders.add(folder)
    else for (; folder !== root; folder = dirname(folder)) folders.add(folder)
  }
  const paths = new Set(inputs.map((input) => resolve(root, input)))
  for (const folder of folders) {
    // The checkout's own folder changes whenever a tool adds something at its top (.tap, dist).
    if (folder !== root) paths.add(folder)
    for (const name of SETTINGS) paths.add(join(folder, name))
  }
  return [...paths].map((path) => relative(root, path))
}

/** A name no other process, here or on another machine sharing the folder, writes at the same time. */
const uniqueSuffix = () => `${process.pid}.${randomBytes(4).toString("hex")}`

/** Writes a file under its name only once complete: another process reads all of it or none. */
export const writeAtomically = (path, contents) => {
  mkdirSync(dirname(path), { recursive: true })
  const partial = `${path}.${uniqueSuffix()}.tmp`
  writeFileSync(partial, contents)
  renameSync(partial, path)
}

/** The file system's current time at `folder`, or undefined if nothing can be written there. */
export const fileSystemTime = (folder) => {
  try {
    mkdirSync(folder, { recursive: true })
    const probe = join(folder, `.clock.${uniqueSuffix()}`)
    writeFileSync(probe, "")
    const { ctimeMs } = statSync(probe)
    unlinkSync(probe)
    return ctimeMs
  } catch {
    return undefined
  }
}

/**
 * Records that a build begun at `startedAt` (fileSystemTime) made `outputs`, `entryOutput` among
 * them, from `inputs` (paths relative to `root`, as esbuild's metafile names them); unless a file
 * it depends on changed shortly before it began. Returns whether it recorded.
 */
export const writeBuildRecord = (recordPath, root, { inputs, outputs, entryOutput, startedAt }) => {
  const stamps = dependencies(root, inputs).map((path) => [path, signature(resolve(root, path))])
  if (stamps.some(([, { ctimeMs }]) => ctimeMs >= startedAt - RECENT_MS)) return false
  writeAtomically(recordPath, JSON.stringify({ stamps: stamps.map(([path, { text }]) => [path, text]), outputs, entryOutput }))
  return true
}

/**
 * The recorded build's entry output (relative to `root`) if everything it depends on is as
 * recorded; its outputs and the record are touched, as in use.
 */
export const currentBuild = (recordPath, root) => {
  try {
    const { stamps, outputs, entryOutput } = JSON.parse(readFileSync(recordPath, "utf8"))
    if (!stamps.every(([path, text]) => signature(resolve(root, path)).text === text)) return undefined
    const now = new Date()
    for (const output of outputs) utimesSync(resolve(root, output), now, now) // also fails if one was removed
    utimesSync(recordPath, now, now)
    return entryOutput
  } catch {
    return undefined // none yet, or one that another version of this script wrote
  }
}
