/**
 * npm run bench:api — requests through the whole platform (HTTP, authentication, rate limit,
 * admission with its unit reservation, the supervisor, the render, artifact storage, completion
 * transaction, the answer) against the bare render of the same documents, on PGlite and on
 * PostgreSQL. Prints Markdown tables for docs/performance.md (the README keeps a summary).
 *
 * Four operations: v1 convert of the one-page letter (the PDF in the answer), v2 preview and
 * publication of the two-page résumé (a JobResponse once the job has ended: the server waits up to
 * PRESSROOM_SYNC_THRESHOLD_MS, here 60 s, so every answer is a finished job; a 202 or a job that
 * did not succeed counts as an error). Every request renders something new: v1 a distinct variant
 * of the letter per request, v2 a revision of its own per request (a pool of documents made before
 * the run, each previewed or published once) with a fresh Idempotency-Key. The fourth, at
 * concurrency 1 only, publishes revisions previewed before the run: each reuses its preview's
 * bytes (issue 23), and the "reused" column counts the jobs that did. Then, on PGlite, v1 convert
 * of the 60-page report with each engine (PRESSROOM_RENDER_ENGINE) at concurrency 1, against the
 * bare render of that engine. Each of the three parts (`platform`, `reuse`, `engines`) can be run
 * alone: `npm run bench:api -- reuse engines`.
 *
 * For each database: a fresh server process (default worker count), an admin-plan account (no unit
 * runs out) and rate limits out of the way; a 20 s warm-up, then for each operation autocannon at
 * concurrency 1 and 4 for 20 s and 16 for 60 s. The bare render is the same documents through an
 * in-process renderer with the same worker count, sequentially (the baseline of concurrency 1),
 * measured while no server runs. The server's own mean render time in each run (from its metrics)
 * shows how much of the difference is the render slowed by the platform's work on the same cores
 * rather than the platform itself.
 *
 * PostgreSQL: PRESSROOM_BENCH_DATABASE_URL or PRESSROOM_TEST_DATABASE_URL names a server whose
 * user may create databases; without one the PostgreSQL rows are skipped.
 */
import autocannon from "autocannon"
import { availableParallelism, cpus } from "node:os"
import { type RenderEngine, Renderer } from "../src/render/renderer.ts"
import { createAccount } from "../test/helpers/api.ts"
import { type DatabaseKind, freshDatabase } from "../test/helpers/database.ts"
import { type RunningServer, startServer } from "../test/helpers/server.ts"
import { idempotencyKey, newDocument, renderBody } from "../test/helpers/v2.ts"
import { documents, variant } from "./documents.ts"
import { quantile } from "./stats.ts"

const letter = documents().find((doc) => doc.name === "one-page letter")!
const resume = documents().find((doc) => doc.name === "two-page resume")!
const report = documents().find((doc) => doc.name === "60-page report")!
const postgresUrl = process.env.PRESSROOM_BENCH_DATABASE_URL ?? process.env.PRESSROOM_TEST_DATABASE_URL
const workers = availableParallelism()
const RUNS = [
  [1, 20],
  [4, 20],
  [16, 60]
] as const

let serial = 0

/** Median and p95 of sequential renders of distinct variants of `doc`, in process, with no server running. */
const bareRender = async (doc: typeof letter, engine: RenderEngine = "wasm", iterations = 60): Promise<{ p50: number; p95: number }> => {
  const renderer = await Renderer.create({ engine, workers, timeoutMs: 30_000 })
  try {
    const next = () => renderer.render({ markdown: variant(doc.markdown, ++serial), templateId: doc.templateId })
    const warmUntil = Date.now() + 8_000
    while (Date.now() < warmUntil) await next()
    const times: Array<number> = []
    for (let i = 0; i < iterations; i++) {
      const start = performance.now()
      await next()
      times.push(performance.now() - start)
    }
    return { p50: quantile(times, 0.5), p95: quantile(times, 0.95) }
  } finally {
    await renderer.close()
  }
}

/** One request of an operation: where it goes, what it sends, and whether its answer is a success. */
interface Request {
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: string
}

interface Operation {
  readonly name: string
  /** The concurrencies and durations to measure (default RUNS). */
  readonly runs?: ReadonlyArray<readonly [number, number]>
  /** Prepares what `connections` clients can send for `seconds` (v2: the pool of revisions). */
  readonly prepare: (server: RunningServer, key: string, connections: number, seconds: number) => Promise<() => Request>
  readonly succeeded: (status: number, body: string) => boolean
}

/** v1 convert of distinct variants of `doc` (the PDF in the answer). */
const v1ConvertOf = (doc: typeof letter, name: string, runs?: Operation["runs"]): Operation => ({
  name,
  ...(runs ? { runs } : {}),
  prepare: async () => () => ({
    path: "/api/v1/convert",
    headers: {},
    body: JSON.stringify({ markdown: variant(doc.markdown, ++serial), templateId: doc.templateId })
  }),
  succeeded: (status) => status === 200
})

const v1Convert = v1ConvertOf(letter, "v1 convert, letter")

/** As many résumé documents as `connections` clients could use in `seconds` at the bare render's pace, with slack. */
const revisionPool = async (server: RunningServer, key: string, size: number) => {
  const pool: Array<{ documentId: string; revisionId: string }> = []
  const maker = async () => {
    while (pool.length < size) {
      const { documentId, revisionId } = await newDocument(server, key, {
        markdown: variant(resume.markdown, ++serial),
        spec: { templateId: resume.templateId },
        title: "Bench résumé"
      })
      pool.push({ documentId, revisionId })
    }
  }
  await Promise.all(Array.from({ length: 8 }, maker))
  return pool
}

/** The job status of a JobResponse body, if it is one. */
const jobStatusOf = (body: string): unknown => {
  try {
    return (JSON.parse(body) as { job?: { status?: unknown } }).job?.status
  } catch {
    return undefined
  }
}

/** v2 previews or publications, each of a revision of its own, sized from the bare render. */
const v2Render = (purpose: "previews" | "publishes", bareP50: number): Operation => ({
  name: `v2 ${purpose === "previews" ? "preview" : "publish"}, résumé`,
  prepare: async (server, key, connections, seconds) => {
    const size = Math.ceil(((seconds * 1000 * Math.min(connections, workers)) / bareP50) * 1.2) + 20
    const pool = await revisionPool(server, key, size)
    let next = 0
    return () => {
      // Past the end of the pool a revision would be rendered a second time: the run says so.
      const { documentId, revisionId } = pool[next++ % pool.length]!
      if (next === pool.length + 1) console.error(`the pool of ${pool.length} revisions ran out: later requests repeat revisions`)
      return {
        path: `/api/v2/documents/${documentId}/${purpose}`,
        headers: { "idempotency-key": idempotencyKey() },
        body: JSON.stringify(renderBody(revisionId, "resume.pdf"))
      }
    }
  },
  succeeded: (status, body) => status === 200 && jobStatusOf(body) === "succeeded"
})

/** Revisions previewed before the run, each published while its preview is available. */
const PREVIEWED_POOL = 200

/**
 * v2 publication of a revision just previewed (issue 23): the publication reuses the preview's
 * bytes (same manifest, same owner), so no typesetting. The pool is previewed before the run and
 * published in turn; past its end a revision is published again, which reuses as well.
 */
const publishAfterPreview: Operation = {
  name: "v2 publish after preview of the same revision, résumé",
  runs: [[1, 20]],
  prepare: async (server, key) => {
    const pool = await revisionPool(server, key, PREVIEWED_POOL)
    for (const { documentId, revisionId } of pool) {
      const previewed = await fetch(`${server.url}/api/v2/documents/${documentId}/previews`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": idempotencyKey() },
        body: JSON.stringify(renderBody(revisionId, "resume.pdf"))
      })
      if (jobStatusOf(await previewed.text()) !== "succeeded") throw new Error("a preview of the pool did not succeed")
    }
    let next = 0
    return () => {
      const { documentId, revisionId } = pool[next++ % pool.length]!
      return {
        path: `/api/v2/documents/${documentId}/publishes`,
        headers: { "idempotency-key": idempotencyKey() },
        body: JSON.stringify(renderBody(revisionId, "resume.pdf"))
      }
    }
  },
  succeeded: (status, body) => status === 200 && jobStatusOf(body) === "succeeded"
}

interface Run {
  readonly operation: string
  readonly connections: number
  /** Mean wall-clock time of a render attempt inside the server during the run (its metrics). */
  readonly serverRender: number
  readonly seconds: number
  readonly p50: number
  readonly p95: number
  readonly perSecond: number
  readonly requests: number
  readonly errors: number
  /** Jobs that reused an earlier render's bytes during the run (the server's metrics). */
  readonly reused: number
}

/** The server's render-duration histogram (total seconds and count of successful renders so far) and its reuses. */
const renderTotals = async (url: string) => {
  const text = await (await fetch(`${url}/metrics`)).text()
  const reuses = Number(/^pressroom_render_reuses_total (\S+)$/m.exec(text)?.[1] ?? Number.NaN)
  const value = (name: string) => {
    const match = new RegExp(`^${name}\\{outcome="succeeded"\\} (\\S+)$`, "m").exec(text)
    if (!match) throw new Error(`the server's metrics have no ${name}`)
    return Number(match[1])
  }
  return { seconds: value("pressroom_render_duration_seconds_sum"), count: value("pressroom_render_duration_seconds_count"), reuses }
}

const load = async (server: RunningServer, key: string, operation: Operation, connections: number, seconds: number): Promise<Run> => {
  const next = await operation.prepare(server, key, connections, seconds)
  const before = await renderTotals(server.url)
  const run = await autocannonRun(server.url, key, operation, next, connections, seconds)
  const after = await renderTotals(server.url)
  return {
    ...run,
    serverRender: ((after.seconds - before.seconds) * 1000) / Math.max(1, after.count - before.count),
    reused: after.reuses - before.reuses
  }
}

const autocannonRun = (
  url: string,
  key: string,
  operation: Operation,
  next: () => Request,
  connections: number,
  seconds: number
): Promise<Omit<Run, "serverRender" | "reused">> =>
  new Promise((resolve, reject) => {
    const times: Array<number> = []
    let failed = 0
    const instance = autocannon(
      {
        url,
        method: "POST",
        connections,
        duration: seconds,
        // Not autocannon's 10 s: a v1 client that gives up cancels its conversion, and a cold
        // server's first 60-page reports take longer than that.
        timeout: 120,
        requests: [
          {
            setupRequest: (request) => {
              const { path, headers, body } = next()
              return {
                ...request,
                path,
                body,
                headers: { ...request.headers, ...headers, authorization: `Bearer ${key}`, "content-type": "application/json" }
              }
            },
            onResponse: (status, body) => {
              if (!operation.succeeded(status, body)) failed++
            }
          }
        ]
      },
      (error, result) => {
        if (error) return reject(error)
        resolve({
          operation: operation.name,
          connections,
          seconds,
          p50: quantile(times, 0.5),
          p95: quantile(times, 0.95),
          perSecond: result.requests.total / seconds,
          requests: result.requests.total,
          errors: result.errors + result.timeouts + failed
        })
      }
    )
    instance.on("response", (_client, _status, _bytes, responseTime) => times.push(responseTime))
  })

const benchDatabase = async (kind: DatabaseKind, operations: ReadonlyArray<Operation>, engine: RenderEngine = "wasm") => {
  const database = await freshDatabase(kind, postgresUrl)
  const unlimited = "10000000"
  const server = await startServer(undefined, {
    ...database.env,
    PRESSROOM_RENDER_ENGINE: engine,
    PRESSROOM_RENDER_WORKERS: String(workers),
    PRESSROOM_SYNC_THRESHOLD_MS: "60000",
    PRESSROOM_RATE_LIMIT_CONVERT_PER_MINUTE: unlimited,
    PRESSROOM_RATE_LIMIT_PREVIEW_PER_MINUTE: unlimited,
    PRESSROOM_RATE_LIMIT_PUBLISH_PER_MINUTE: unlimited,
    PRESSROOM_RATE_LIMIT_WRITE_PER_MINUTE: unlimited,
    PRESSROOM_RATE_LIMIT_READ_PER_MINUTE: unlimited
  })
  try {
    const account = await createAccount(server, { plan: "admin" })
    // Warm-up: workers, templates, connections, and time for V8 to finish optimising both
    // WebAssembly modules (Typst's and PGlite's) on background threads, which otherwise take
    // CPU from the first measured run; then a short one of each operation, for its code paths.
    for (const [i, operation] of operations.entries()) {
      const seconds = i === 0 ? 20 : 5
      await autocannonRun(server.url, account.key, operation, await operation.prepare(server, account.key, 2, seconds), 2, seconds)
    }
    const runs: Array<Run> = []
    for (const operation of operations) {
      for (const [connections, seconds] of operation.runs ?? RUNS)
        runs.push(await load(server, account.key, operation, connections, seconds))
    }
    return runs
  } finally {
    await server.stop()
    await database.drop()
  }
}

/** Which parts run: `npm run bench:api -- reuse engines` runs two; with none named, all three. */
const SECTIONS = ["platform", "reuse", "engines"] as const
const named = process.argv.slice(2)
const unknown = named.filter((name) => !(SECTIONS as ReadonlyArray<string>).includes(name))
if (unknown.length > 0) throw new Error(`unknown section ${unknown[0]}: choose among ${SECTIONS.join(", ")}`)
const runsSection = (section: (typeof SECTIONS)[number]) => named.length === 0 || named.includes(section)

const kinds: Array<DatabaseKind> = postgresUrl ? ["pglite", "postgres"] : ["pglite"]
const bare = runsSection("platform") ? { letter: await bareRender(letter), resume: await bareRender(resume) } : undefined
const operations = bare ? [v1Convert, v2Render("previews", bare.resume.p50), v2Render("publishes", bare.resume.p50)] : []
const bareOf = (operation: string) => (operation.startsWith("v1") ? bare!.letter : bare!.resume)
const runs: Array<Run & { kind: DatabaseKind }> = []
for (const kind of kinds) {
  const chosen = [...operations, ...(runsSection("reuse") ? [publishAfterPreview] : [])]
  if (chosen.length > 0) for (const run of await benchDatabase(kind, chosen)) runs.push({ ...run, kind })
}

/**
 * v1 convert of the 60-page report with each engine on PGlite, at concurrency 1 for 30 s, against
 * the bare render of the same engine: what the platform adds on a long document (a PDF of about a
 * megabyte stored and sent back), and the engines end to end.
 */
const engineRuns: Array<Run & { engine: RenderEngine; bare: { p50: number; p95: number } }> = []
for (const engine of runsSection("engines") ? (["wasm", "native"] as const) : []) {
  const bareReport = await bareRender(report, engine, 9)
  const [run] = await benchDatabase("pglite", [v1ConvertOf(report, "v1 convert, 60-page report", [[1, 30]])], engine)
  engineRuns.push({ ...run!, engine, bare: bareReport })
}

const ms = (value: number) => `${value.toFixed(1)} ms`
console.log(
  `\n${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "cpu"}, ${workers} cores, ${workers} render workers, Node ${process.version}\n`
)
if (bare)
  console.log(
    `Bare render (in process, sequential): letter p50 ${ms(bare.letter.p50)}, p95 ${ms(bare.letter.p95)}; résumé p50 ${ms(bare.resume.p50)}, p95 ${ms(bare.resume.p95)}\n`
  )
console.log(
  "| operation | database | concurrency | duration | p50 | p95 | requests/s | requests | errors | reused | render in server (mean) | p50 over bare render |"
)
console.log("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
for (const run of runs) {
  // A reuse renders nothing: the bare render is no baseline for it.
  const over = run.connections === 1 && run.reused === 0 ? `+${ms(run.p50 - bareOf(run.operation).p50)}` : ""
  console.log(
    `| ${run.operation} | ${run.kind} | ${run.connections} | ${run.seconds} s | ${ms(run.p50)} | ${ms(run.p95)} | ${run.perSecond.toFixed(1)} | ${run.requests} | ${run.errors} | ${run.reused} | ${ms(run.serverRender)} | ${over} |`
  )
}
console.log(
  "\n| operation | engine | database | concurrency | duration | p50 | p95 | requests | errors | bare render p50 | p50 over bare render |"
)
console.log("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|")
for (const run of engineRuns) {
  console.log(
    `| ${run.operation} | ${run.engine} | pglite | ${run.connections} | ${run.seconds} s | ${ms(run.p50)} | ${ms(run.p95)} | ${run.requests} | ${run.errors} | ${ms(run.bare.p50)} | +${ms(run.p50 - run.bare.p50)} |`
  )
}
