/**
 * Checks the import rules of src/ (ARCHITECTURE.md, the "Imports" invariants):
 * the rules of .dependency-cruiser.cjs (no file-level circle, no domain module importing src/http/,
 * nothing heavy reachable from the typed client),
 * and no circle between folders of src/, or between the folders inside one (src/render/engine and
 * src/render are two), beyond the one the Effect idiom asks for, a context's
 * handlers (src/<context>/http.ts) importing the API assembled from every context (src/http/api.ts).
 * Prints each problem and exits 1 when there is any: `npm run check:imports`.
 */
import { cruise, type IReporterOutput } from "dependency-cruiser"
import extractDepcruiseConfig from "dependency-cruiser/config-utl/extract-depcruise-config"

const ALLOWED_EDGE = { from: /^src\/[^/]+\/http\.ts$/, to: /^src\/http\/api\.ts$/ }

/**
 * The folder a module belongs to, two levels deep: src/render/engine/pool.ts is in src/render/engine,
 * src/render/renderer.ts in src/render, and a file directly in src/ is its own.
 */
const folderOf = (path: string) => {
  const parts = path.split("/")
  return parts
    .slice(0, Math.min(parts.length, 3))
    .join("/")
    .replace(/^(src\/[^/]+)\/[^/]+\.[a-z]+$/, "$1")
}

/** The strongly connected components of more than one node (Tarjan). */
const cycles = (graph: ReadonlyMap<string, ReadonlySet<string>>): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const found: Array<Array<string>> = []
  let next = 0
  const visit = (node: string) => {
    index.set(node, next)
    low.set(node, next++)
    stack.push(node)
    onStack.add(node)
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node)!, low.get(to)!))
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!))
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: Array<string> = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1) found.push(component.sort())
    }
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return found
}

const ruleSet = await extractDepcruiseConfig("./.dependency-cruiser.cjs")
const result: IReporterOutput = await cruise(["src"], { ...ruleSet.options, ruleSet, validate: true })
if (typeof result.output === "string") throw new Error("dependency-cruiser answered with text, not its result")
const problems: Array<string> = []

// Every rule's violations, those of reachability rules (found on modules, not on one import) included,
// with the path that breaks the rule (a circle's, or the imports from the module to what it reaches).
for (const violation of result.output.summary.violations) {
  const path = violation.cycle
    ? [violation.from, ...violation.cycle.map((step) => step.name)]
    : [violation.from, ...(violation.via ?? []).map((step) => step.name), violation.to]
  problems.push(`${violation.rule.name}: ${path.filter((step, i) => step !== path[i - 1]).join(" → ")}`)
}

const folders = new Map<string, Set<string>>()
for (const module of result.output.modules.filter((m) => m.source.startsWith("src/"))) {
  const from = folderOf(module.source)
  for (const dependency of module.dependencies.filter((d) => d.resolved.startsWith("src/"))) {
    const to = folderOf(dependency.resolved)
    if (to === from || (ALLOWED_EDGE.from.test(module.source) && ALLOWED_EDGE.to.test(dependency.resolved))) continue
    if (!folders.has(from)) folders.set(from, new Set())
    folders.get(from)!.add(to)
  }
}
for (const cycle of cycles(folders)) problems.push(`folder circle: ${cycle.join(", ")}`)

for (const problem of problems) console.error(problem)
console.log(
  `imports of ${result.output.modules.filter((m) => m.source.startsWith("src/")).length} modules checked: ${problems.length} problems`
)
process.exitCode = problems.length > 0 ? 1 : 0
