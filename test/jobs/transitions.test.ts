/**
 * The state machines have one table and one picture, and the code agrees with both: the jobs
 * diagram of docs/state-machines.md draws exactly the transitions of src/jobs/transitions.ts; every
 * call in src/ that changes a job's status (a JobStore or JobLifecycle write) is one of them and
 * each of them is made; and every status a statement of src/ writes into jobs, documents,
 * artifacts, webhook_subscriptions or webhook_deliveries is the target of an edge drawn for the
 * module that writes it. Reads the sources; starts nothing.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import t from "tap"
import { JOB_TRANSITIONS } from "../../src/jobs/transitions.ts"

const root = join(import.meta.dirname, "../..")
const src = join(root, "src")
const page = readFileSync(join(root, "docs/state-machines.md"), "utf8")

interface Edge {
  readonly from: string
  readonly to: string
  readonly write: string
  readonly by: ReadonlyArray<string>
}

/** The edges of the Mermaid diagram under `## heading` (`from --> to: write · module, module`). */
const diagram = (heading: string): ReadonlyArray<Edge> => {
  const section = page.split(/^## /m).find((part) => part.startsWith(`${heading}\n`))
  const block = section === undefined ? undefined : /```mermaid\n([\s\S]*?)```/.exec(section)?.[1]
  if (block === undefined) throw new Error(`docs/state-machines.md has no diagram under "## ${heading}"`)
  return block.split("\n").flatMap((line) => {
    const edge = /^\s*(\S+) --> (\S+): (\w+) · (.+)$/.exec(line)
    return edge === null ? [] : [{ from: edge[1]!, to: edge[2]!, write: edge[3]!, by: edge[4]!.split(", ").map((by) => by.trim()) }]
  })
}

const sources = (folder: string): Array<{ path: string; text: string }> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith(".ts") ? [{ path: relative(src, path), text: readFileSync(path, "utf8") }] : []
  })
const files = sources(src)

const key = (edge: { from?: string; to: string; write: string; by: string }) => [edge.by, edge.write, edge.from ?? "", edge.to].join(" ")
const flatten = (edges: ReadonlyArray<Edge>) => edges.flatMap((edge) => edge.by.map((by) => ({ ...edge, by })))

t.test("the jobs diagram draws exactly the table of src/jobs/transitions.ts", async (t) => {
  t.same(flatten(diagram("Jobs")).map(key).sort(), flatten(JOB_TRANSITIONS).map(key).sort())
})

t.test("every call that changes a job's status is a transition of the table, and every transition is made", async (t) => {
  const writes = new Set(JOB_TRANSITIONS.map((transition) => transition.write))
  const found = new Set<string>()
  for (const file of files) {
    // The names this module gives the JobStore and JobLifecycle services.
    const receivers = [...file.text.matchAll(/const (\w+) = yield\* Job(?:Store|Lifecycle)\b/g)].map((match) => match[1]!)
    if (receivers.length === 0) continue
    for (const call of file.text.matchAll(new RegExp(`\\b(?:${receivers.join("|")})\\.(\\w+)\\(([^\\n]*)`, "g"))) {
      const write = call[1]!
      if (!writes.has(write as never)) continue
      const targets = [...new Set(JOB_TRANSITIONS.filter((transition) => transition.write === write).map((transition) => transition.to))]
      // A write with several targets names its status as an argument ("failed" or "cancelled").
      const to = targets.length === 1 ? targets[0]! : /"(\w+)"/.exec(call[2]!)?.[1]
      t.ok(to !== undefined, `${file.path}: ${write}(${call[2]} names its status`)
      found.add(key({ by: file.path, write, to: to ?? "?" }))
    }
  }
  const table = new Set(JOB_TRANSITIONS.flatMap((transition) => transition.by.map((by) => key({ ...transition, from: undefined, by }))))
  t.same([...found].sort(), [...table].sort(), "the calls in src/ are the table's (module, write, status)")
})

/** Each table with a status column, the section drawing it, and who writes it when the diagram names deciders instead. */
const MACHINES = [
  { table: "jobs", heading: "Jobs", writers: ["jobs/job-store.ts", "jobs/fair-claim.ts"] },
  { table: "documents", heading: "Documents" },
  { table: "artifacts", heading: "Artifacts" },
  { table: "webhook_subscriptions", heading: "Webhook subscriptions" },
  { table: "webhook_deliveries", heading: "Webhook deliveries" }
] as const

t.test("every status a statement of src/ writes is drawn, for the module that writes it", async (t) => {
  for (const machine of MACHINES) {
    const edges = diagram(machine.heading)
    const states = new Set(edges.flatMap((edge) => [edge.from, edge.to]))
    let statements = 0
    for (const file of files) {
      const written: Array<string> = []
      // `update <table> set … status = 'x'`, up to the statement's where, returning or end.
      for (const update of file.text.matchAll(
        new RegExp(`update ${machine.table}\\s+set\\b([\\s\\S]*?)(?:\\bwhere\\b|\\breturning\\b|\`)`, "g")
      )) {
        statements++
        written.push(...[...update[1]!.matchAll(/\bstatus = '(\w+)'/g)].map((match) => match[1]!))
      }
      // `insert into <table> …`: the states it names, up to the end of its template literal.
      for (const insert of file.text.matchAll(new RegExp(`insert into ${machine.table}\\b([^\`]*)`, "g"))) {
        statements++
        written.push(...[...insert[1]!.matchAll(/'(\w+)'/g)].map((match) => match[1]!).filter((state) => states.has(state)))
      }
      for (const to of written) {
        const drawn =
          "writers" in machine
            ? machine.writers.includes(file.path as never) && edges.some((edge) => edge.to === to)
            : edges.some((edge) => edge.to === to && edge.by.includes(file.path))
        t.ok(drawn, `${file.path} writes ${machine.table}.status = '${to}', which "## ${machine.heading}" draws for it`)
      }
    }
    t.ok(statements > 0, `statements writing ${machine.table} are found`)
  }
})
