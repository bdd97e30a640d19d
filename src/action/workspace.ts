/**
 * The files the `files` globs match, and the paths the action writes, all inside the workspace
 * (GITHUB_WORKSPACE): a pattern, an output folder or a matched link that leads out of it is
 * refused, so a workflow cannot be made to read or write the runner's other files.
 */
import * as glob from "@actions/glob"
import { realpathSync } from "node:fs"
import { isAbsolute, join, relative, resolve, sep } from "node:path"
import { InvalidInput } from "./inputs.ts"

/** Whether `path` (absolute) is `root` or under it. */
const isInside = (root: string, path: string): boolean => {
  const rest = relative(root, path)
  return rest === "" || (!rest.startsWith(`..${sep}`) && rest !== ".." && !isAbsolute(rest))
}

/** A path given relative to the workspace, as an absolute path; throws InvalidInput when it leads out. */
export const insideWorkspace = (workspace: string, path: string, what: string): string => {
  const absolute = resolve(workspace, path)
  if (isAbsolute(path) || !isInside(workspace, absolute)) throw new InvalidInput(`${what} '${path}' is outside the workspace`)
  return absolute
}

/** Whether `path` resolves, through links, outside `realWorkspace`; a broken link fails later, when read. */
const leadsOut = (realWorkspace: string, path: string): boolean => {
  try {
    return !isInside(realWorkspace, realpathSync(path))
  } catch {
    return false
  }
}

export interface MatchedFile {
  /** Relative to the workspace, with `/` separators: what annotations, the summary and `pdfs` name. */
  readonly path: string
  readonly absolute: string
  /** Set when the file is a link whose target is outside the workspace: it is not read. */
  readonly outside: boolean
}

/**
 * The files the patterns match, in path order. A pattern may start with `!` to exclude; `#` starts
 * a comment. Directories are not matched, and links are not followed into folders.
 */
export const matchFiles = async (workspace: string, patterns: ReadonlyArray<string>): Promise<ReadonlyArray<MatchedFile>> => {
  const anchored = patterns
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern !== "" && !pattern.startsWith("#"))
    .map((pattern) => {
      const negated = /^!+/.exec(pattern)?.[0] ?? ""
      const rest = pattern.slice(negated.length)
      return `${negated}${join(insideWorkspace(workspace, rest, "files pattern"), "")}`
    })
  if (anchored.length === 0) throw new InvalidInput("input files names no pattern")
  const globber = await glob.create(anchored.join("\n"), {
    followSymbolicLinks: false,
    matchDirectories: false,
    implicitDescendants: false
  })
  const realWorkspace = realpathSync(workspace)
  const found = await globber.glob()
  return found
    .map((absolute) => ({
      path: relative(workspace, absolute).split(sep).join("/"),
      absolute,
      outside: leadsOut(realWorkspace, absolute)
    }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** `docs/cv.md` → `docs/cv` (what the output's `.pdf` and `.provenance.json` are appended to). */
export const withoutExtension = (path: string): string => path.replace(/(?<=[^/])\.[^./]*$/, "")
