/**
 * `pressroom accounts|keys|credits` as an operator runs them: real processes on the configured
 * database (each kind for creating and revoking, the embedded one for the rest), printing the
 * admin API's JSON; the keys they make authenticate until revoked; refusals are one line with
 * exit code 2 (bad input) or 1 (an unknown id).
 */
import t from "tap"
import { childEnv } from "../helpers/child-env.ts"
import { BASELINE_WASM_ONLY } from "../helpers/server.ts"
import { Effect, Option } from "effect"
import { execFile } from "node:child_process"
import { join } from "node:path"
import { ApiKeys } from "../../src/accounts/api-keys.ts"
import type { KeyEnvironment } from "../../src/accounts/principal.ts"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { forEachDatabase, runWith, type TestDatabase } from "../helpers/database.ts"
import type { TestContext } from "../helpers/tap.ts"

const bin = join(packageRoot, "bin", "pressroom.js")
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const pressroom = (database: TestDatabase, args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Run> => {
  const { DATABASE_URL: _url, PRESSROOM_DATA_DIR: _dir, PRESSROOM_KEY_ENVIRONMENT: _environment, ...inherited } = childEnv()
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...BASELINE_WASM_ONLY, bin, ...args],
      { cwd: packageRoot, env: { ...inherited, ...database.env, ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
      }
    )
  })
}

/** A successful run's JSON; fails the test with stderr otherwise. */
const json = (t: TestContext, run: Run) => {
  t.equal(run.code, 0, run.stderr)
  return JSON.parse(run.stdout)
}

const authenticates = (database: TestDatabase, secret: string, environment: KeyEnvironment) =>
  runWith(database, Effect.flatMap(ApiKeys, (keys) => keys.authenticate(secret, environment)).pipe(Effect.provide(ApiKeys.Default))).then(
    Option.isSome
  )

await forEachDatabase(t, async (t, database) => {
  const { account } = json(
    t,
    await pressroom(database, ["accounts", "create", "--name", "Acme Ltd", "--plan", "monthly", "--monthly-units", "40"])
  )

  await t.test("create an account and a key, then revoke it", async (t) => {
    t.match(account, { id: UUID, name: "Acme Ltd", plan: "monthly", monthlyUnits: 40 })
    t.same(Object.keys(account).sort(), ["createdAt", "id", "monthlyUnits", "name", "plan"])

    const created = json(
      t,
      await pressroom(database, [
        "keys",
        "create",
        "--account",
        account.id,
        "--name",
        "Nightly build",
        "--scope",
        "documents.read",
        "--scope",
        "documents.render",
        "--expires-at",
        "2099-01-01T00:00:00Z"
      ])
    )
    t.match(created.secret, /^pk_live_[0-9a-f]{32}$/)
    t.same(created.key, {
      id: created.key.id,
      name: "Nightly build",
      prefix: created.secret.slice(0, 12),
      scopes: ["documents.render", "documents.read"],
      environment: "live",
      expiresAt: "2099-01-01T00:00:00.000Z",
      createdAt: created.key.createdAt,
      lastUsedAt: null,
      revokedAt: null
    })
    t.ok(await authenticates(database, created.secret, "live"), "the key works")
    const { keys } = json(t, await pressroom(database, ["keys", "list", "--account", account.id]))
    t.same(
      keys.map((key: { id: string; name: string }) => [key.id, key.name]),
      [[created.key.id, "Nightly build"]],
      "keys list shows the account's keys"
    )
    t.notOk(JSON.stringify(keys).includes(created.secret), "without their secrets")

    const invited = json(t, await pressroom(database, ["accounts", "invite", account.id, "Ada@Example.com"]))
    t.match(invited, { invitation: { id: UUID, email: "ada@example.com" }, url: /^http:\/\/[^/]+\/app\/invitations\/[A-Za-z0-9_-]{43}$/ })

    const { key } = json(t, await pressroom(database, ["keys", "revoke", created.key.id]))
    t.match(key, { id: created.key.id, revokedAt: /^\d{4}-/ })
    t.notOk(await authenticates(database, created.secret, "live"), "the revoked key no longer works")
  })

  // Each run is a process of several seconds on a shared machine: the rest, which does not depend
  // on the kind of database, runs on the embedded one only.
  if (database.kind !== "pglite") return

  await t.test("a key in the deployment's environment, credit packs, and the account's usage", async (t) => {
    const testKey = json(t, await pressroom(database, ["keys", "create", "--account", account.id], { PRESSROOM_KEY_ENVIRONMENT: "test" }))
    t.match(testKey.secret, /^pk_test_/, "without --environment, the deployment's environment")
    t.same(
      testKey.key.scopes,
      ["documents.render", "documents.preview", "documents.read", "webhooks.manage", "templates.manage"],
      "every scope"
    )

    const { usage } = json(t, await pressroom(database, ["credits", "add", "--account", account.id, "--packs", "2"]))
    t.match(usage, { used: 0, reserved: 0, remaining: 540, creditUnits: 500 })

    const shown = json(t, await pressroom(database, ["accounts", "show", account.id]))
    t.same(shown.account, account)
    t.same(shown.usage, usage)
  })

  await t.test("refusals: one line, exit 2 for bad input, 1 for an unknown id", async (t) => {
    const unknown = "00000000-0000-4000-8000-000000000000"
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, number, RegExp]> = [
      [["accounts", "create", "--name", "Acme", "--plan", "gold"], 2, /unknown plan 'gold'/],
      [["accounts", "create", "--plan", "free"], 2, /--name is required/],
      [["accounts", "create", "--name", "Acme", "--plan", "free", "--monthly-units", "many"], 2, /--monthly-units: /],
      [["keys", "create", "--account", "acme"], 2, /--account must be a uuid/],
      [["keys", "create", "--account", unknown, "--expires-at", "soon"], 2, /--expires-at: must be an ISO 8601 date-time/],
      [["keys", "revoke", unknown], 1, /key not found/],
      [["keys", "rotate"], 2, /usage: pressroom keys/],
      [["credits", "add", "--account", unknown, "--packs", "0"], 2, /--packs: /]
    ]
    for (const [args, code, message] of cases) {
      const run = await pressroom(database, args)
      t.equal(run.code, code, `${args.join(" ")}: exit ${code}`)
      t.match(run.stderr, message)
      t.equal(run.stderr.trim().split("\n").length, 1, "one line")
      t.equal(run.stdout, "", "nothing on stdout")
    }
  })
})
