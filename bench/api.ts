/**
 * npm run bench:api — v1 convert through the whole platform (HTTP, authentication, rate limit,
 * admission with its unit reservation, the supervisor, the render, artifact storage, completion
 * transaction, the PDF back), against the bare render of the same documents, on PGlite and on
 * PostgreSQL. Prints a Markdown table for docs/performance.md (the README keeps a summary).
 *
 * For each database: a fresh server process (default worker count), an admin-plan account (no unit
 * runs out) and rate limits out of the way; a 20 s warm-up, then autocannon at concurrency 1 and 4
 * for 20 s and 16 for 60 s, each request a distinct variant of the one-page letter so no render
 * is a replay. The bare render is the same documents through an in-process renderer with the same worker count,
 * sequentially (the baseline of concurrency 1), measured while no server runs. The server's own
 * mean render time in each run (from its metrics) shows how much of the difference is the render
 * slowed by the platform's work on the same cores rather than the platform itself.
 *
 * PostgreSQL: PRESSROOM_BENCH_DATABASE_URL or PRESSROOM_TEST_DATABASE_URL names a server whose
 * user may create databases; without one the PostgreSQL rows are skipped.
 */
import autocannon from "autocannon"
import { availableParallelism, cpus } from "node:os"
import { createAccount } from "../test/helpers/api.ts"
import { freshDatabase, type DatabaseKind } from "../test/helpers/database.ts"
import { startServer } from "../test/helpers/server.ts"
import { Renderer } from "../src/render/renderer.ts"
import { documents, variant } from "./documents.ts"
import { quantile } from "./stats.ts"

const letter = documents().find((doc) => doc.name === "one-page letter")!
const postgresUrl = process.env.PRESSROOM_BENCH_DATABASE_URL ?? process.env.PRESSROOM_TEST_DATABASE_URL

let serial = 0
const body = () => JSON.stringify({ markdown: variant(letter.markdown, ++serial), templateId: letter.templateId })

const bareRender = async (): Promise<{ p50: number; p95: number }> => {
  const renderer = await Renderer.create({ workers: availableParallelism(), timeoutMs: 30_000 })
  try {
    const warmUntil = Date.now() + 8_000
    while (Date.now() < warmUntil) await renderer.render({ markdown: variant(letter.markdown, ++serial), templateId: letter.templateId })
    const times: Array<number> = []
    for (let i = 0; i < 60; i++) {
      const start = performance.now()
      await renderer.render({ markdown: variant(letter.markdown, ++serial), templateId: letter.templateId })
      times.push(performance.now() - start)
    }
    return { p50: quantile(times, 0.5), p95: quantile(times, 0.95) }
  } finally {
    await renderer.close()
  }
}

interface Run {
  readonly connections: number
  /** Mean wall-clock time of a render attempt inside the server during the run (its metrics). */
  readonly serverRender: number
  readonly seconds: number
  readonly p50: number
  readonly p95: number
  readonly perSecond: number
  readonly requests: number
  readonly errors: number
}

/** The server's render-duration histogram: total seconds and count of successful renders so far. */
const renderTotals = async (url: string) => {
  const text = await (await fetch(`${url}/metrics`)).text()
  const value = (name: string) => {
    const match = new RegExp(`^${name}\\{outcome="succeeded"\\} (\\S+)$`, "m").exec(text)
    if (!match) throw new Error(`the server's metrics have no ${name}`)
    return Number(match[1])
  }
  return { seconds: value("pressroom_render_duration_seconds_sum"), count: value("pressroom_render_duration_seconds_count") }
}

const load = async (url: string, key: string, connections: number, seconds: number): Promise<Run> => {
  const before = await renderTotals(url)
  const run = await autocannonRun(url, key, connections, seconds)
  const after = await renderTotals(url)
  return { ...run, serverRender: ((after.seconds - before.seconds) * 1000) / Math.max(1, after.count - before.count) }
}

const autocannonRun = (url: string, key: string, connections: number, seconds: number): Promise<Omit<Run, "serverRender">> =>
  new Promise((resolve, reject) => {
    const times: Array<number> = []
    const instance = autocannon(
      {
        url: `${url}/api/v1/convert`,
        method: "POST",
        connections,
        duration: seconds,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        requests: [{ setupRequest: (request) => ({ ...request, body: body() }) }]
      },
      (error, result) => {
        if (error) return reject(error)
        resolve({
          connections,
          seconds,
          p50: quantile(times, 0.5),
          p95: quantile(times, 0.95),
          perSecond: result.requests.total / seconds,
          requests: result.requests.total,
          errors: result.errors + result.timeouts + result.non2xx
        })
      }
    )
    instance.on("response", (_client, _status, _bytes, responseTime) => times.push(responseTime))
  })

const benchDatabase = async (kind: DatabaseKind) => {
  const database = await freshDatabase(kind, postgresUrl)
  const server = await startServer(undefined, {
    ...database.env,
    PRESSROOM_RENDER_WORKERS: String(availableParallelism()),
    PRESSROOM_RATE_LIMIT_CONVERT_PER_MINUTE: "10000000"
  })
  try {
    const account = await createAccount(server, { plan: "admin" })
    // Warm-up: workers, templates, connections, and time for V8 to finish optimising both
    // WebAssembly modules (Typst's and PGlite's) on background threads, which otherwise take
    // CPU from the first measured run.
    await autocannonRun(server.url, account.key, 2, 20)
    const runs: Array<Run> = []
    for (const [connections, seconds] of [
      [1, 20],
      [4, 20],
      [16, 60]
    ] as const) {
      runs.push(await load(server.url, account.key, connections, seconds))
    }
    return runs
  } finally {
    await server.stop()
    await database.drop()
  }
}

const bare = await bareRender()
const kinds: Array<DatabaseKind> = postgresUrl ? ["pglite", "postgres"] : ["pglite"]
const results = new Map<DatabaseKind, Array<Run>>()
for (const kind of kinds) results.set(kind, await benchDatabase(kind))

const ms = (value: number) => `${value.toFixed(1)} ms`
console.log(
  `\nv1 convert, one-page letter (${cpus()[0]?.model ?? "cpu"}, ${availableParallelism()} cores, ${availableParallelism()} render workers), ${new Date().toISOString().slice(0, 10)}\n`
)
console.log(`Bare render (in process, sequential): p50 ${ms(bare.p50)}, p95 ${ms(bare.p95)}\n`)
console.log(
  "| database | concurrency | duration | p50 | p95 | requests/s | requests | errors | render in server (mean) | p50 over bare render |"
)
console.log("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
for (const [kind, runs] of results) {
  for (const run of runs) {
    console.log(
      `| ${kind} | ${run.connections} | ${run.seconds} s | ${ms(run.p50)} | ${ms(run.p95)} | ${run.perSecond.toFixed(1)} | ${run.requests} | ${run.errors} | ${ms(run.serverRender)} | ${run.connections === 1 ? `+${ms(run.p50 - bare.p50)}` : "—"} |`
    )
  }
}
