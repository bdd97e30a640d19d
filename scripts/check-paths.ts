/**
 * Checks that what the repository names exists in it: every file named in a comment of src/,
 * scripts/, test/ or bench/ (a path, or a file name found somewhere in the repository), and every
 * link of README.md, ARCHITECTURE.md, CHANGELOG.md and docs/ (a file inside the repository, and
 * a heading of it when the link names one). Names of other projects that look like files (typst.ts)
 * are listed in OTHER_PROJECTS. Prints each problem and exits 1 when there is any:
 * `npm run check:paths`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { basename, dirname, join, relative, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")

/** Names in comments that are not files of this repository: other projects', and examples of a name. */
const OTHER_PROJECTS = new Set(["typst.ts", "node.js", "pdf.js", "ipaddr.js", "postgres.js"])
/** Addresses of other projects' files, cited as the sources of test fixtures. */
const OTHER_PROJECTS_FILES = /^github\.com\//
const EXAMPLES = new Set(["file.md", "out.json", "entry.ts", "main.typ", "good.ts", "bad.ts", "lib/x.typ", "typst-templates/lib/x.typ"])
/** Folders whose comments name files of the sample repositories and workspaces their tests build (the GitHub Action's). */
const SAMPLE_WORKSPACES = ["src/action/", "test/action/"]

const SKIPPED = new Set(["node_modules", "dist", ".git", "coverage", ".tap", ".test-build"])

const walk = (folder: string): Array<string> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return []
    const path = join(folder, entry.name)
    return entry.isDirectory() ? walk(path) : [relative(root, path)]
  })

const files = walk(root)
const names = new Set(files.map((path) => basename(path)))
const problems: Array<string> = []

// Comments: a file name or path ending in an extension of ours.
const FILE_NAME = /(?<![\w@$-])(?:\.{1,2}\/)*[\w-]+(?:[./][\w-]+)*\.(?:ts|cjs|mjs|js|json|sql|typ|md|sh)\b(?![\w(-])/g
const COMMENT = /\/\*[\s\S]*?\*\/|(?<![:"'`\\])\/\/[^\n]*/g

const named = (from: string, name: string): boolean => {
  if (OTHER_PROJECTS.has(name.toLowerCase()) || EXAMPLES.has(name) || OTHER_PROJECTS_FILES.test(name)) return true
  // The build's outputs exist once it has run.
  if (name.startsWith("dist/")) return true
  if (!name.includes("/")) return names.has(name) || names.has(`.${name}`)
  const plain = name.replace(/^(?:\.{1,2}\/)+/, "")
  return existsSync(resolve(root, dirname(from), name)) || files.some((path) => path === plain || path.endsWith(`/${plain}`))
}

for (const file of files.filter((path) => /^(src|scripts|test|bench)\/.*\.[cm]?[jt]s$/.test(path))) {
  const text = readFileSync(join(root, file), "utf8")
  for (const comment of text.matchAll(COMMENT)) {
    for (const name of comment[0].matchAll(FILE_NAME)) {
      if (!named(file, name[0]) && !SAMPLE_WORKSPACES.some((folder) => file.startsWith(folder))) {
        const line = text.slice(0, comment.index + name.index).split("\n").length
        problems.push(`${file}:${line}: the comment names ${name[0]}, which is not in the repository`)
      }
    }
  }
}

/** The text outside fenced code blocks. */
const prose = (text: string) => {
  let fenced = false
  return text
    .split("\n")
    .filter((line) => {
      // A fence opens a line; an inline span such as ```` ```math ```` does not.
      const fence = /^\s*(```|~~~)(?!`)/.test(line)
      if (fence) fenced = !fenced
      return !fenced && !fence
    })
    .join("\n")
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")

const anchorsOf = (path: string): Set<string> =>
  new Set(
    prose(readFileSync(path, "utf8"))
      .split("\n")
      .flatMap((line) => {
        const heading = /^#{1,6} (.+)$/.exec(line)
        return heading === null ? [] : [anchorOf(heading[1]!.replace(/`/g, "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1"))]
      })
  )

const documents = files.filter((path) => /^(README|ARCHITECTURE|CHANGELOG)\.md$|^docs\/.*\.md$/.test(path))
for (const document of documents) {
  const text = prose(readFileSync(join(root, document), "utf8"))
  for (const link of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = link[1]!
    if (/^[a-z]+:/i.test(target)) continue
    const [path, anchor] = target.split("#") as [string, string | undefined]
    const resolved = path === "" ? join(root, document) : resolve(root, dirname(document), path)
    const where = `${document}: the link ${target}`
    if (relative(root, resolved).startsWith("..")) problems.push(`${where} leaves the repository`)
    else if (!existsSync(resolved)) problems.push(`${where} names no file`)
    else if (anchor !== undefined && statSync(resolved).isFile() && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor)) {
      problems.push(`${where} names no heading of ${relative(root, resolved)}`)
    }
  }
}

for (const problem of problems) console.error(problem)
console.log(`paths named in comments and links of ${documents.length} documents checked: ${problems.length} problems`)
process.exitCode = problems.length > 0 ? 1 : 0
