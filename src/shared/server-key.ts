/**
 * The one server secret (contract section 1): 32 bytes from which every signing and encryption
 * key is derived with HKDF, one label per use, so that a key serves one purpose only and a new use
 * never needs a new secret. `PRESSROOM_SERVER_KEY` gives it as base64; embedded, it is generated
 * once into `<PRESSROOM_DATA_DIR>/server-key`; with `DATABASE_URL` it is required, because every
 * process of a cluster must verify what any other signed. A key that cannot be had refuses the
 * start with one line that never quotes the value.
 */
import { Config, ConfigError, Context, Effect, Option, Redacted } from "effect"
import { hkdfSync, randomBytes, randomUUID } from "node:crypto"
import { link, mkdir, open, readFile, rm } from "node:fs/promises"
import { join } from "node:path"

/** The HKDF labels (the `info`), one per use; a new version of a use takes a new label. */
export const KEY_LABELS = {
  artifactLinks: "pressroom/artifact-links/v1",
  cursors: "pressroom/cursors/v1",
  webhookSecrets: "pressroom/webhook-secrets/v1"
} as const
export type KeyLabel = (typeof KEY_LABELS)[keyof typeof KEY_LABELS]

export const SERVER_KEY_BYTES = 32

export class ServerKey extends Context.Tag("pressroom/ServerKey")<
  ServerKey,
  {
    /** The 32-byte key for `label`: HKDF-SHA256 of the server key, empty salt, `label` as info. */
    readonly deriveKey: (label: KeyLabel) => Buffer
  }
>() {}

/** The service over a key already in hand (the configured one, or a test's). */
export const makeServerKey = (key: Uint8Array) => {
  if (key.length !== SERVER_KEY_BYTES) throw new RangeError(`a server key is ${SERVER_KEY_BYTES} bytes`)
  const secret = Buffer.from(key)
  return ServerKey.of({ deriveKey: (label) => Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), label, SERVER_KEY_BYTES)) })
}

/**
 * The bytes of a base64 key, or none. Only the canonical spelling of exactly 32 bytes is taken
 * (padding optional, surrounding white space ignored): Node's decoder skips characters it does not
 * know, so a mangled value would otherwise decode to some other, shorter key.
 */
export const decodeServerKey = (text: string): Option.Option<Buffer> => {
  const trimmed = text.trim()
  if (!/^[A-Za-z0-9+/]{43}=?$/.test(trimmed)) return Option.none()
  const bytes = Buffer.from(trimmed, "base64")
  return bytes.length === SERVER_KEY_BYTES && bytes.toString("base64") === trimmed.padEnd(44, "=") ? Option.some(bytes) : Option.none()
}

const INVALID = "PRESSROOM_SERVER_KEY must be 32 random bytes in base64 (make one with: openssl rand -base64 32)"
const REQUIRED =
  "PRESSROOM_SERVER_KEY is required with DATABASE_URL: every process of a cluster must share it (32 random bytes, base64: openssl rand -base64 32)"

/** An empty `PRESSROOM_SERVER_KEY=` (as `.env` files leave it) is unset, as an empty DATABASE_URL is. */
const configuredKey = Config.option(Config.redacted("PRESSROOM_SERVER_KEY")).pipe(
  Config.map(Option.filter((key) => Redacted.value(key).trim() !== ""))
)

/**
 * The key's setting checked without touching the data folder (src/http/settings.ts, before the start
 * does anything): well formed when given, and given when the server is `clustered`.
 */
export const serverKeySetting = (clustered: Config.Config<boolean>) =>
  Config.all({ key: configuredKey, clustered }).pipe(
    Config.validate({
      message: INVALID,
      validation: ({ key }) => Option.isNone(key) || Option.isSome(decodeServerKey(Redacted.value(key.value)))
    }),
    Config.validate({ message: REQUIRED, validation: ({ key, clustered }) => Option.isSome(key) || !clustered })
  )

const KEY_FILE = "server-key"

class KeyFileProblem extends Error {}

/**
 * The embedded server's key file, created on the first start and read on every later one. It is
 * written whole to a temporary file of its own (`wx`, mode 0600) and then linked to its name,
 * which fails if the name exists: so the file appears with its content, and of two processes
 * starting at once the one that loses the link reads the winner's key. (Opening the final name
 * with `wx` would make it exist before its content did, and the loser could read it empty.)
 */
const keyFile = async (dataDir: string): Promise<Buffer> => {
  const path = join(dataDir, KEY_FILE)
  const read = async () =>
    Option.getOrThrowWith(
      decodeServerKey(await readFile(path, "utf8")),
      () => new KeyFileProblem(`${path} does not hold a server key (32 bytes, base64): restore it, or remove it to make a new one`)
    )
  try {
    return await read()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
  }
  await mkdir(dataDir, { recursive: true })
  const temporary = join(dataDir, `.${KEY_FILE}.${randomUUID()}.tmp`)
  const file = await open(temporary, "wx", 0o600)
  try {
    await file.writeFile(`${randomBytes(SERVER_KEY_BYTES).toString("base64")}\n`)
    await file.sync()
  } finally {
    await file.close()
  }
  try {
    await link(temporary, path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
  } finally {
    await rm(temporary, { force: true })
  }
  return read()
}

/**
 * The key as configured (contract section 1): `PRESSROOM_SERVER_KEY`, else, for a server that is
 * not `clustered` (the embedded database), the one generated into `dataDir`. A refusal is a
 * `ConfigError`, which the start reports as one line. Which database is configured the platform
 * reads (src/platform.ts, `ServerKeyLive`): src/db imports src/render, which imports this folder.
 */
export const loadServerKey = (options: {
  readonly clustered: boolean
  readonly dataDir: string
}): Effect.Effect<Buffer, ConfigError.ConfigError> =>
  Effect.gen(function* () {
    const key = yield* configuredKey
    if (Option.isSome(key)) {
      return yield* Option.match(decodeServerKey(Redacted.value(key.value)), {
        onNone: () => Effect.fail(ConfigError.InvalidData(["PRESSROOM_SERVER_KEY"], INVALID)),
        onSome: Effect.succeed
      })
    }
    if (options.clustered) return yield* Effect.fail(ConfigError.MissingData(["PRESSROOM_SERVER_KEY"], REQUIRED))
    return yield* Effect.tryPromise({
      try: () => keyFile(options.dataDir),
      catch: (error) =>
        ConfigError.InvalidData(
          ["PRESSROOM_DATA_DIR"],
          error instanceof KeyFileProblem
            ? error.message
            : `the server key file ${join(options.dataDir, KEY_FILE)} cannot be read or made (${(error as NodeJS.ErrnoException).code ?? "error"})`
        )
    })
  })
