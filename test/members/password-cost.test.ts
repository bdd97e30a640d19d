/**
 * `PRESSROOM_PASSWORD_HASH_COST` (docs/configuration.md): scrypt's N as a power of two, 17 unless
 * set, 10 to 20; a bad value stops a server's start, which reads every setting first. A hash keeps
 * the cost it was made with, so hashes made at one cost still verify after the setting changes.
 */
import { ConfigProvider, Effect, Either } from "effect"
import { scryptSync } from "node:crypto"
import t from "tap"
import { serverSettings } from "../../src/http/settings.ts"
import { passwordHashCost } from "../../src/members/config.ts"
import { hashPassword, verifyPassword } from "../../src/members/password.ts"

const read = (value: string | undefined) =>
  Effect.runSync(
    Effect.either(passwordHashCost).pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(value === undefined ? [] : [["PRESSROOM_PASSWORD_HASH_COST", value]])))
    )
  )

t.test("the cost: 17 unless set; 10 to 20 taken, anything else refused naming the setting", async (t) => {
  t.same(read(undefined), Either.right(17))
  t.same(read("10"), Either.right(10))
  t.same(read("20"), Either.right(20))
  for (const bad of ["9", "21", "16.5", "high"]) {
    const result = read(bad)
    t.ok(Either.isLeft(result) && String(result.left).includes("PRESSROOM_PASSWORD_HASH_COST"), `${bad} refused`)
  }
  const settings = Effect.runSync(
    Effect.either(serverSettings).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["PRESSROOM_PASSWORD_HASH_COST", "9"]]))))
  )
  t.ok(Either.isLeft(settings) && String(settings.left).includes("PRESSROOM_PASSWORD_HASH_COST"), "among the settings a start reads first")
})

t.test("a hash is made at the cost given and verified at the cost it carries", async (t) => {
  const password = "correct horse battery staple"
  const cheap = await Effect.runPromise(hashPassword(password, 10))
  const [, logN, , , salt, hash] = cheap.split("$")
  t.equal(logN, "10")
  t.equal(hash, scryptSync(password, Buffer.from(salt!, "base64url"), 32, { N: 2 ** 10, r: 8, p: 1 }).toString("base64url"))
  const dearer = await Effect.runPromise(hashPassword(password, 12))
  for (const stored of [cheap, dearer]) {
    t.ok(await Effect.runPromise(verifyPassword(password, stored)), `${stored.slice(0, 12)}… verifies its password`)
    t.notOk(await Effect.runPromise(verifyPassword(`${password} `, stored)), `${stored.slice(0, 12)}… refuses another`)
  }
})
