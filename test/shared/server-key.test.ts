/**
 * The server key (contract section 1): embedded, it is generated once into the data folder (mode
 * 0600) and read back on every later start, and processes starting at once agree on it; a given
 * PRESSROOM_SERVER_KEY must be 32 bytes of base64, and a PostgreSQL start without one is refused;
 * a refusal is one line that never quotes the value. Each use gets its own derived key.
 */
import { ConfigProvider, Effect, Exit } from "effect"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t from "tap"
import { ServerKeyLive } from "../../src/platform.ts"
import { KEY_LABELS, loadServerKey, makeServerKey, ServerKey } from "../../src/shared/server-key.ts"
import { freshDatabase, postgresServerUrl } from "../helpers/database.ts"
import { refusedStart } from "../helpers/server.ts"

const providing = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

/** The key of a server under `env`: embedded in `dataDir` unless `clustered` (on PostgreSQL). */
const load = (env: Record<string, string>, options: { clustered: boolean; dataDir: string }) =>
  Effect.runPromiseExit(loadServerKey(options).pipe(providing(env)))

const loaded = async (env: Record<string, string>, options: { clustered: boolean; dataDir: string }) => {
  const exit = await load(env, options)
  if (Exit.isFailure(exit)) throw new Error(`the key was refused: ${exit.cause}`)
  return exit.value
}

/** The message of a refused key, as the start reports it. */
const refusal = async (env: Record<string, string>, options: { clustered: boolean; dataDir: string }) => {
  const exit = await load(env, options)
  return Exit.isFailure(exit) ? String(exit.cause) : "(accepted)"
}

/** The platform's ServerKey under `env`, as `pressroom serve` builds it; a refusal as its message. */
const platformKey = (env: Record<string, string>) =>
  Effect.runPromise(
    Effect.map(ServerKey, (key) => key.deriveKey(KEY_LABELS.cursors)).pipe(
      Effect.provide(ServerKeyLive),
      providing(env),
      Effect.catchAll((error) => Effect.succeed(String(error)))
    )
  )

const dataDir = () => mkdtempSync(join(tmpdir(), "pressroom-key-"))

t.test("embedded: generated once into the data folder, 0600, and read back on later starts", async (t) => {
  const dir = dataDir()
  const first = await loaded({}, { clustered: false, dataDir: dir })
  t.equal(first.length, 32)
  const file = join(dir, "server-key")
  t.equal(statSync(file).mode & 0o777, 0o600, "only the owner may read it")
  t.same(
    Buffer.from(readFileSync(file, "utf8").trim(), "base64"),
    first,
    "the file holds the key in base64, as PRESSROOM_SERVER_KEY takes it"
  )
  t.same(await loaded({}, { clustered: false, dataDir: dir }), first, "a later start reads the same key")
  t.notSame(await loaded({}, { clustered: false, dataDir: dataDir() }), first, "another data folder gets another key")
  t.same(
    await platformKey({ PRESSROOM_DATA_DIR: dir }),
    makeServerKey(first).deriveKey(KEY_LABELS.cursors),
    "the platform of an embedded server uses the file in PRESSROOM_DATA_DIR"
  )
})

t.test("embedded: starts racing for the file all end with the one key that was written", async (t) => {
  for (let round = 0; round < 20; round++) {
    const dir = dataDir()
    const keys = await Promise.all(Array.from({ length: 16 }, () => loaded({}, { clustered: false, dataDir: dir })))
    t.equal(new Set(keys.map((key) => key.toString("hex"))).size, 1, `round ${round}: one key`)
    t.same(Buffer.from(readFileSync(join(dir, "server-key"), "utf8"), "base64"), keys[0])
    t.same(readdirSync(dir), ["server-key"], "no temporary file is left behind")
  }
})

t.test("a key file that holds no key is refused, naming the file and not its content", async (t) => {
  const dir = dataDir()
  writeFileSync(join(dir, "server-key"), "half-a-secret-value\n", { mode: 0o600 })
  const message = await refusal({}, { clustered: false, dataDir: dir })
  t.match(message, `${join(dir, "server-key")} does not hold a server key`)
  t.notMatch(message, "half-a-secret-value")
})

t.test("PRESSROOM_SERVER_KEY: 32 bytes of base64, used as given and never written to the data folder", async (t) => {
  const key = randomBytes(32)
  const dir = dataDir()
  t.same(await loaded({ PRESSROOM_SERVER_KEY: key.toString("base64") }, { clustered: false, dataDir: dir }), key)
  t.same(
    await loaded({ PRESSROOM_SERVER_KEY: ` ${key.toString("base64").replace("=", "")}\n` }, { clustered: false, dataDir: dir }),
    key,
    "padding and white space optional"
  )
  t.same(readdirSync(dir), [], "no key file")
  t.same(await loaded({ PRESSROOM_SERVER_KEY: key.toString("base64") }, { clustered: true, dataDir: dir }), key, "on PostgreSQL too")

  const canonical = key.toString("base64")
  // The 43rd character carries two bits of the key and four that base64 decoders ignore.
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  const lastBitsChanged = `${canonical.slice(0, 42)}${alphabet[alphabet.indexOf(canonical[42]!) + 1]}=`
  for (const [what, value] of [
    ["31 bytes", randomBytes(31).toString("base64")],
    ["33 bytes", randomBytes(33).toString("base64")],
    ["hex", randomBytes(32).toString("hex")],
    ["base64url with - or _", `${canonical.slice(0, 10)}-_${canonical.slice(12)}`],
    ["a last character whose ignored bits are set", lastBitsChanged],
    ["a passphrase", "correct horse battery staple, 32+ characters long"]
  ]) {
    if (value === canonical) continue
    const message = await refusal({ PRESSROOM_SERVER_KEY: value! }, { clustered: false, dataDir: dir })
    t.match(message, "PRESSROOM_SERVER_KEY must be 32 random bytes in base64", what!)
    t.notMatch(message, value!, `${what}: the value is not quoted`)
  }
})

t.test("PostgreSQL without PRESSROOM_SERVER_KEY is refused: a cluster must share one key", async (t) => {
  for (const key of [{}, { PRESSROOM_SERVER_KEY: "" }] as Array<Record<string, string>>) {
    const dir = dataDir()
    const message = await platformKey({ DATABASE_URL: "postgres://db.invalid/pressroom", PRESSROOM_DATA_DIR: dir, ...key })
    t.match(message, "PRESSROOM_SERVER_KEY is required with DATABASE_URL: every process of a cluster must share it")
    t.same(readdirSync(dir), [], "and no key is made for it")
  }
})

t.test("one derived key per label, the same from the same server key", async (t) => {
  const key = randomBytes(32)
  const labels = Object.values(KEY_LABELS)
  const derived = labels.map((label) => makeServerKey(key).deriveKey(label).toString("hex"))
  t.equal(new Set(derived).size, labels.length, "each use has its own key")
  t.same(
    labels.map((label) => makeServerKey(Buffer.from(key)).deriveKey(label).toString("hex")),
    derived,
    "deterministic: every process of a cluster derives the same keys"
  )
  t.notSame(makeServerKey(randomBytes(32)).deriveKey(KEY_LABELS.cursors).toString("hex"), derived[1], "another server key, other keys")
  t.ok(
    derived.every((hex) => hex !== key.toString("hex")),
    "no derived key is the server key"
  )
})

t.test("pressroom serve refuses to start, in one line that does not quote the value", async (t) => {
  const value = Buffer.from("not the 32 bytes of a real key").toString("base64")
  const bad = await refusedStart({ PRESSROOM_SERVER_KEY: value })
  t.equal(bad.code, 1, bad.output)
  t.match(bad.output, /^.*PRESSROOM_SERVER_KEY must be 32 random bytes in base64.*$/m)
  t.notMatch(bad.output, value)
  t.notMatch(bad.output, "Listening on")

  if (!postgresServerUrl) {
    t.comment("PRESSROOM_TEST_DATABASE_URL is not set: the PostgreSQL start without a key was not tried")
    return
  }
  const database = await freshDatabase("postgres")
  t.teardown(database.drop)
  const missing = await refusedStart({ ...database.env, PRESSROOM_SERVER_KEY: "" })
  t.equal(missing.code, 1, missing.output)
  t.match(missing.output, "PRESSROOM_SERVER_KEY is required with DATABASE_URL: every process of a cluster must share it")
  t.notMatch(missing.output, "Listening on")
})
