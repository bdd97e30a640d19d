/**
 * One process at a time on an embedded data folder (issue 30, src/db/folder-lock.ts): beside a
 * running server, a CLI command and a second `pressroom serve` are refused at once, in one line
 * naming the folder and the server's PID and saying what to do instead, and change nothing; the
 * server goes on answering. A folder whose server was killed (kill -9) opens normally.
 */
import { execFile } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t from "tap"
import { packageRoot } from "../../src/render/fonts/manifest.ts"
import { ADMIN_TOKEN, BASELINE_WASM_ONLY, refusedStart, startServer } from "../helpers/server.ts"
import { childEnv } from "../helpers/child-env.ts"
import { convert, createAccount, requestJson } from "../helpers/api.ts"

const pressroom = (env: Record<string, string>, ...args: Array<string>): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [...BASELINE_WASM_ONLY, join(packageRoot, "bin", "pressroom.js"), ...args],
      { env: childEnv(env) },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr })
    )
  })

t.test("an embedded data folder in use by a live server", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "pressroom-folder-lock-"))
  const env = { PRESSROOM_DATA_DIR: dataDir }
  const server = await startServer(t, env)
  const pid = server.process.pid!
  const { accountId } = await createAccount(server)
  const created = await requestJson(server, "POST", `/admin/v1/accounts/${accountId}/keys`, { token: ADMIN_TOKEN, body: {} })
  const keyId = created.body.key.id as string
  const account = { key: created.body.secret as string }
  const folder = join(dataDir, "db")
  const refusal = new RegExp(
    `^pressroom \\w+: the embedded database ${folder} is in use by process ${pid}: .*admin API.*stop it before audit or migrate\\n$`
  )

  await t.test("a CLI command is refused in one line and changes nothing", async (t) => {
    for (const args of [["keys", "revoke", keyId], ["accounts", "create", "--name", "Lost", "--plan", "free"], ["migrate"]]) {
      const run = await pressroom(env, ...args)
      t.equal(run.code, 1, `${args[0]}: exit 1`)
      t.match(run.stderr, refusal, `${args[0]}: one line naming the folder, the PID and what to do`)
      t.equal(run.stdout, "", `${args[0]}: nothing on stdout`)
    }
    const converted = await convert(server, account.key, { markdown: "# Still mine\n\nThe key was not revoked." })
    t.equal(converted.status, 200, "the key still works: nothing was revoked")
  })

  await t.test("a second server is refused in one line; the first goes on answering", async (t) => {
    const second = await refusedStart(env)
    t.equal(second.code, 1, second.output)
    const lines = second.output.split("\n").filter((line) => line.includes("in use by process"))
    t.equal(lines.length, 1, "one line")
    t.match(`${lines[0]}\n`, refusal)
    t.notMatch(second.output, "Listening on")
    t.equal((await requestJson(server, "GET", "/healthz")).status, 200, "/healthz right after")
    t.equal(
      (await convert(server, account.key, { markdown: "# After\n\nA conversion right after." })).status,
      200,
      "a conversion right after"
    )
  })

  await t.test("after kill -9 the folder opens normally", async (t) => {
    const exited = new Promise((resolve) => server.process.once("exit", resolve))
    server.process.kill("SIGKILL")
    await exited
    const revoked = await pressroom(env, "keys", "revoke", keyId)
    t.equal(revoked.code, 0, revoked.stderr)
    t.match(JSON.parse(revoked.stdout), { key: { revokedAt: String } })
    const again = await startServer(t, env)
    const refused = await convert(again, account.key, { markdown: "# Revoked\n\nNo longer." })
    t.equal(refused.status, 401, "the revocation took effect")
  })
})
