/**
 * The template bundle: every file under typst-templates/, which is all the compiler may read.
 * Paths inside the compiler are rooted at "/" (typst-templates/lib/x.typ is /lib/x.typ).
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, sep } from "node:path"
import { packageRoot } from "../fonts/manifest.ts"

export interface BundleFile {
  readonly path: string
  readonly text: string
}

export const templatesRoot = join(packageRoot, "typst-templates")

const walk = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]
  )

export const readBundle = (root = templatesRoot): ReadonlyArray<BundleFile> =>
  walk(root)
    .map((file) => ({ path: `/${relative(root, file).split(sep).join("/")}`, text: readFileSync(file, "utf8") }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
