/** API keys as strings, and request timestamps: the formats the contract names, and nothing else. */
import t from "tap"
import { environmentOf, generateApiKey, hashApiKey, prefixOf } from "../../src/accounts/api-key.ts"
import { isIsoDateTime } from "../../src/shared/timestamp.ts"
import { ADMIN_TOKEN } from "../helpers/server.ts"

t.test("a new key is pk_live_ or pk_test_ and 32 random lowercase hex characters", async (t) => {
  const live = Array.from({ length: 200 }, () => generateApiKey("live"))
  t.ok(live.every((key) => /^pk_live_[0-9a-f]{32}$/.test(key)))
  t.match(generateApiKey("test"), /^pk_test_[0-9a-f]{32}$/)
  t.equal(new Set(live).size, live.length, "no two alike")
  t.equal(environmentOf(live[0]!), "live")
  t.equal(environmentOf(generateApiKey("test")), "test")
})

t.test("anything else is not a key", async (t) => {
  const hex = "0123456789abcdef0123456789abcdef"
  for (const candidate of [
    "",
    `pk_live_${hex.slice(1)}`,
    `pk_live_${hex}0`,
    `pk_live_${hex.toUpperCase()}`,
    `pk_prod_${hex}`,
    `PK_LIVE_${hex}`,
    ` pk_live_${hex}`,
    `pk_live_${hex} `,
    `pk_live_${hex}\n`,
    `sk_live_${hex}`,
    ADMIN_TOKEN
  ]) {
    t.equal(environmentOf(candidate), undefined, JSON.stringify(candidate))
  }
})

t.test("what is stored: the SHA-256 and a prefix too short to use", async (t) => {
  const key = generateApiKey("live")
  t.match(hashApiKey(key), /^[a-f0-9]{64}$/)
  t.not(hashApiKey(key), hashApiKey(generateApiKey("live")))
  t.equal(prefixOf(key), key.slice(0, 12))
  t.equal(prefixOf(key).length - "pk_live_".length, 4, "four of the 32 secret characters")
})

t.test("request timestamps are ISO 8601 date-times with an offset naming a real instant", async (t) => {
  for (const good of ["2026-08-01T00:00:00Z", "2026-08-01T00:00Z", "2026-08-01T12:30:45.123456+02:00", "2028-02-29T23:59:59-05:00"]) {
    t.ok(isIsoDateTime(good), good)
  }
  for (const bad of [
    "2026",
    "2026-08-01",
    "2026-08-01T00:00:00",
    "2026-02-30T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-08-01T24:00:00Z",
    "tomorrow",
    "1785542400"
  ]) {
    t.notOk(isIsoDateTime(bad), bad)
  }
})
