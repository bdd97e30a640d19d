/**
 * The package as a user gets it: `npm pack` of this checkout (its prepack builds dist/ and the
 * declarations), installed into a fresh empty project, offline, from the npm cache that the
 * checkout's `npm install` filled.
 *
 * The cache holds the tarballs of every package the checkout installed, but not always the
 * registry's metadata that npm reads to choose a version of each: an offline `npm install
 * <tarball>` then stops at the first package whose metadata is missing (ENOTCACHED). The project
 * is given a lockfile instead, the checkout's entries for what the package depends on (not its
 * devDependencies), so npm takes the same versions from the cache without asking the registry.
 */
import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { childEnv } from "./child-env.ts"

const run = promisify(execFile)

/** A command's outcome, whether it succeeded or not. */
export interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command in `cwd` as a user would, never throwing: its exit code says how it went. */
export const runIn = (cwd: string, command: string, args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Run> =>
  run(command, [...args], { cwd, env: childEnv({ NO_COLOR: "1", ...env }), timeout: 300_000, maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: unknown; stdout?: string; stderr?: string }) => ({
      code: typeof error.code === "number" ? error.code : 1,
      stdout: error.stdout ?? "",
      stderr: `${String(error)}\n${error.stderr ?? ""}`
    })
  )

/** A command that must succeed: its output, or an error carrying what it printed. */
const mustRun = async (cwd: string, command: string, args: ReadonlyArray<string>): Promise<string> => {
  const result = await runIn(cwd, command, args)
  if (result.code !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.code}):\n${result.stderr}\n${result.stdout}`)
  return result.stdout
}

export interface InstalledPackage {
  /** The temporary folder holding the tarball and the project. */
  readonly dir: string
  /** The empty project the package is installed into. */
  readonly project: string
  readonly tarball: string
  /** The tarball's size in bytes. */
  readonly size: number
  /** The paths of the files the tarball holds. */
  readonly files: ReadonlyArray<string>
}

interface LockEntry {
  readonly dev?: boolean
}

/** The checkout's lockfile entries of the packages the package itself depends on. */
const runtimeLockEntries = (): Record<string, LockEntry> => {
  const lock = JSON.parse(readFileSync(join(packageRoot, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> }
  return Object.fromEntries(Object.entries(lock.packages).filter(([path, entry]) => path.startsWith("node_modules/") && !entry.dev))
}

/** Packs the checkout and installs the tarball into a new ES-module project under a temporary folder. */
export const installPackage = async (): Promise<InstalledPackage> => {
  const dir = mkdtempSync(join(tmpdir(), "pressroom-package-"))
  // The tarball is the only file there; npm's own report of it is mixed with what prepack prints.
  await mustRun(packageRoot, "npm", ["pack", "--pack-destination", dir])
  const tarball = join(dir, readdirSync(dir).find((name) => name.endsWith(".tgz"))!)
  const files = (await mustRun(dir, "tar", ["-tzf", tarball]))
    .trim()
    .split("\n")
    .map((path) => path.replace(/^package\//, ""))
  const project = join(dir, "project")
  mkdirSync(project)
  const manifest = { name: "embedding-app", version: "1.0.0", private: true, type: "module" }
  writeFileSync(join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
  const lock = { ...manifest, lockfileVersion: 3, requires: true, packages: { "": manifest, ...runtimeLockEntries() } }
  writeFileSync(join(project, "package-lock.json"), `${JSON.stringify(lock, null, 2)}\n`)
  await mustRun(project, "npm", ["install", "--offline", "--no-audit", "--no-fund", tarball])
  return { dir, project, tarball, size: statSync(tarball).size, files }
}
