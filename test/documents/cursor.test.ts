/**
 * The list cursor (contract section 5, specification: at most 512 characters): it gives back the
 * position it was made from, to its owner only; every single-character alteration, an invented,
 * over-long, another owner's or another server's cursor is a 400 InvalidRequest on `cursor`. The
 * position's timestamp, as PostgreSQL writes it, reads back to the same microsecond on both
 * databases.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Either, Layer } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import t from "tap"
import { Cursors, decodeCursor, encodeCursor } from "../../src/shared/cursor.ts"
import { MAX_CURSOR_LENGTH } from "../../src/shared/pagination.ts"
import { InvalidRequest } from "../../src/shared/errors.ts"
import { KEY_LABELS, makeServerKey } from "../../src/shared/server-key.ts"
import { forEachDatabase, runWith } from "../helpers/database.ts"
import { TestServerKey } from "../helpers/server-key.ts"

const cursorKey = makeServerKey(randomBytes(32)).deriveKey(KEY_LABELS.cursors)
const owner = randomUUID()
const position = { createdAt: "2026-11-25 23:51:05.123456+00", id: randomUUID() }

const isRefusal = (result: Either.Either<unknown, InvalidRequest>) =>
  Either.isLeft(result) && result.left instanceof InvalidRequest && result.left.status === 400 && result.left.field === "cursor"

t.test("a cursor gives back its position, to its owner", async (t) => {
  const cursor = encodeCursor(cursorKey, owner, position)
  t.same(decodeCursor(cursorKey, owner, cursor), Either.right(position))
  t.match(cursor, /^[A-Za-z0-9_.-]+$/, "safe in a query string as it is")
  const longest = encodeCursor(cursorKey, owner, { createdAt: "x".repeat(64), id: position.id })
  t.ok(longest.length <= MAX_CURSOR_LENGTH, `the longest position makes ${longest.length} characters, within 512`)
  t.ok(isRefusal(decodeCursor(cursorKey, randomUUID(), cursor)), "another owner's listing refuses it")
  const otherServer = makeServerKey(randomBytes(32)).deriveKey(KEY_LABELS.cursors)
  t.ok(isRefusal(decodeCursor(otherServer, owner, cursor)), "another server key refuses it")
})

t.test("every single-character alteration is a 400 on cursor", async (t) => {
  const cursor = encodeCursor(cursorKey, owner, position)
  const characters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/% "
  let tried = 0
  let accepted = 0
  for (let i = 0; i < cursor.length; i++) {
    const variants = [...characters].filter((c) => c !== cursor[i]).map((c) => `${cursor.slice(0, i)}${c}${cursor.slice(i + 1)}`)
    variants.push(`${cursor.slice(0, i)}${cursor.slice(i + 1)}`, `${cursor.slice(0, i)}A${cursor.slice(i)}`)
    for (const variant of variants) {
      tried++
      if (!isRefusal(decodeCursor(cursorKey, owner, variant))) accepted++
    }
  }
  t.equal(accepted, 0, `none of ${tried} variants accepted`)
})

t.test("invented and over-long cursors are a 400 on cursor", async (t) => {
  const cursor = encodeCursor(cursorKey, owner, position)
  const [payload] = cursor.split(".")
  const invented = [
    "",
    "next",
    "2",
    payload!,
    `${payload}.`,
    Buffer.from(JSON.stringify([position.createdAt, position.id])).toString("base64url"),
    `${Buffer.from(JSON.stringify(["2030-01-01 00:00:00+00", position.id])).toString("base64url")}.${cursor.split(".")[1]}`,
    `${randomBytes(60).toString("base64url")}.${randomBytes(32).toString("base64url")}`,
    `${cursor}${"A".repeat(MAX_CURSOR_LENGTH - cursor.length + 1)}`,
    "A".repeat(1_000_000)
  ]
  for (const text of invented) t.ok(isRefusal(decodeCursor(cursorKey, owner, text)), `${text.slice(0, 40)}${text.length > 40 ? "…" : ""}`)
  const refusal = decodeCursor(cursorKey, owner, "made-up-by-a-client")
  t.equal(Either.isLeft(refusal) && refusal.left.message.includes("made-up"), false, "the message does not quote the cursor")
})

t.test("the Cursors service signs with the server's cursor key", async (t) => {
  const { cursor, decoded, foreign } = await Effect.runPromise(
    Effect.gen(function* () {
      const cursors = yield* Cursors
      const cursor = cursors.encode(owner, position)
      return {
        cursor,
        decoded: yield* cursors.decode(owner, cursor),
        foreign: yield* Effect.either(cursors.decode(owner, encodeCursor(cursorKey, owner, position)))
      }
    }).pipe(Effect.provide(Cursors.Default.pipe(Layer.provide(TestServerKey))))
  )
  t.same(decoded, position)
  t.ok(isRefusal(foreign), "a cursor signed with another key is refused")
  t.notSame(cursor, encodeCursor(cursorKey, owner, position))
})

await forEachDatabase(t, async (t, database) => {
  // What the listing will do: read created_at as text into the cursor, then compare with it.
  const rows = await runWith(
    database,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [made] = yield* sql<{ at: string }>`select (timestamptz '2026-11-25 23:51:05.123456+00')::text as at`
      const cursor = encodeCursor(cursorKey, owner, { createdAt: made!.at, id: position.id })
      const back = Either.getOrThrow(decodeCursor(cursorKey, owner, cursor))
      return yield* sql<{ same: boolean; earlier: boolean }>`
        select ${back.createdAt}::timestamptz = timestamptz '2026-11-25 23:51:05.123456+00' as same,
               ${back.createdAt}::timestamptz < timestamptz '2026-11-25 23:51:05.123457+00' as earlier`
    }).pipe(Effect.orDie)
  )
  t.same(rows, [{ same: true, earlier: true }], "the microseconds survive the cursor")
})
