/**
 * What a bundle was made from, so that a start can tell whether it is current without running
 * esbuild. A record holds esbuild's version and, for every file esbuild read, for every folder
 * between that file and the checkout (its own folder only, outside the checkout) and for the
 * package.json and tsconfig.json of each such folder and of the checkout, a signature: size,
 * modification time, change time and inode, or "absent".
 * - A folder's times change when an entry is added, removed or renamed in it, so a new file that
 *   would now be resolved first (w.js beside w.ts, a nested node_modules, a package.json) is seen.
 * - The change time cannot be set back, unlike the modification time that rsync -t, cp -p or tar
 *   restore, and a save by renaming gives a new inode.
 * - A build is recorded only if none of these changed within RECENT_MS before it started, on the
 *   file system's own clock: a file saved while esbuild read it would otherwise be recorded with
 *   bytes the bundle does not hold.
 * Not seen: a package linked from outside the checkout (npm link) whose link is pointed elsewhere.
 */
import { version } from "esbuild"
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

/** A build from a file changed less than this before it started is not recorded. */
const RECENT_MS = 2_000

/** The files that decide how esbuild resolves and compiles the files in a folder. */
const SETTINGS = ["package.json", "tsconfig.json"]

const signature = (path) => {
  try {
    const { size, mtimeMs, ctimeMs, ino } = statSync(path)
    return { text: `${size}:${mtimeMs}:${ctimeMs}:${ino}`, ctimeMs }
  } catch {
    return { text: "absent", ctimeMs: -Infinity }
  }
}

/** Every path whose signature a build depends on, relative to `root`: see the header. */
const dependencies = (root, inputs) => {
  const folders = new Set([root])
  for (const input of inputs) {
    let folder = dirname(resolve(root, input))
    if (relative(root, folder).startsWith("..")) folders.add(folder)
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

/** The time of the file system's clock, which file times come from: NFS and bind mounts may differ from the process's. */
const fileSystemNow = (folder) => {
  mkdirSync(folder, { recursive: true })
  const probe = join(folder, `.clock.${process.pid}`)
  writeFileSync(probe, "")
  const { ctimeMs } = statSync(probe)
  unlinkSync(probe)
  return ctimeMs
}

/** Writes a file under its name only once complete: another process reads all of it or none. */
export const writeAtomically = (path, contents) => {
  mkdirSync(dirname(path), { recursive: true })
  const partial = `${path}.${process.pid}.tmp`
  writeFileSync(partial, contents)
  renameSync(partial, path)
}

/** Call before a build: the time against which its files count as recent. */
export const buildStarts = (recordPath) => fileSystemNow(dirname(recordPath))

/**
 * Records a build made from `inputs` (paths relative to `root`, as esbuild's metafile names them)
 * into `outputs`, unless one of the files it depends on changed since shortly before `startedAt`.
 */
export const recordBuild = (recordPath, root, { inputs, outputs, entry, startedAt }) => {
  const stamps = dependencies(root, inputs).map((path) => [path, signature(resolve(root, path))])
  if (stamps.some(([, { ctimeMs }]) => ctimeMs >= startedAt - RECENT_MS)) return
  writeAtomically(recordPath, JSON.stringify({ esbuild: version, stamps: stamps.map(([path, { text }]) => [path, text]), outputs, entry }))
}

/**
 * The recorded build's entry (relative to `root`) if everything it depends on is as recorded;
 * its outputs and the record are touched, as in use.
 */
export const recordedBuild = (recordPath, root) => {
  try {
    const { esbuild, stamps, outputs, entry } = JSON.parse(readFileSync(recordPath, "utf8"))
    if (esbuild !== version || !stamps.every(([path, text]) => signature(resolve(root, path)).text === text)) return undefined
    const now = new Date()
    for (const output of outputs) utimesSync(resolve(root, output), now, now) // also fails if one was removed
    utimesSync(recordPath, now, now)
    return entry
  } catch {
    return undefined // none yet, or one that another version of this script wrote
  }
}
