/**
 * Signed download links (contract section 5): a link grants its artifact until it expires and
 * never after; every single-character alteration, a truncated, over-long or invented token, and a
 * link signed with another server key are refused; a link never outlives its artifact; its href is
 * under PRESSROOM_PUBLIC_BASE_URL, else under the address the server really listens on; a TTL
 * above five minutes refuses the start.
 */
import type { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { ConfigProvider, Effect, Either, Exit, Layer, Option } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { createServer } from "node:http"
import t from "tap"
import { linkTtlConfig, publicBaseUrlConfig } from "../../src/artifacts/config.ts"
import { ArtifactLinks, LINK_PATH_PREFIX, linkExpiry, mintLink, verifyLink } from "../../src/artifacts/links.ts"
import { KEY_LABELS, makeServerKey } from "../../src/shared/server-key.ts"
import { TestServerKey } from "../helpers/server-key.ts"
import { refusedStart } from "../helpers/server.ts"

const linkKey = makeServerKey(randomBytes(32)).deriveKey(KEY_LABELS.artifactLinks)
const now = new Date("2026-11-25T12:00:00.250Z")
const inFiveMinutes = new Date(now.getTime() + 300_000)
const tokenOf = (path: string) => path.slice(LINK_PATH_PREFIX.length)

const refusal = (token: string, at = now) =>
  Either.match(verifyLink(linkKey, token, at), { onLeft: (e) => e.reason, onRight: () => "granted" })

t.test("a link grants its artifact until it expires", async (t) => {
  const artifactId = randomUUID()
  const link = mintLink(linkKey, artifactId, inFiveMinutes)
  t.match(link.path, /^\/api\/v2\/artifact-links\/[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]{43}$/)
  t.same(link.expiresAt, new Date("2026-11-25T12:05:00.000Z"), "expiry in whole seconds, never later than asked")
  t.same(verifyLink(linkKey, tokenOf(link.path), now), Either.right(artifactId))
  t.same(verifyLink(linkKey, tokenOf(link.path), new Date(link.expiresAt.getTime() - 1)), Either.right(artifactId), "a millisecond before")
  t.equal(refusal(tokenOf(link.path), link.expiresAt), "expired", "at its expiry")
  t.equal(refusal(tokenOf(link.path), new Date(link.expiresAt.getTime() + 86_400_000)), "expired", "a day after")
  t.same(
    verifyLink(linkKey, tokenOf(mintLink(linkKey, artifactId.toUpperCase(), inFiveMinutes).path), now),
    Either.right(artifactId),
    "an id in capitals grants the same artifact"
  )
})

t.test("every single-character alteration of a token is refused", async (t) => {
  const token = tokenOf(mintLink(linkKey, randomUUID(), inFiveMinutes).path)
  const characters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/% "
  const outcomes = new Map<string, number>()
  const count = (altered: string) => {
    const outcome = refusal(altered)
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
  }
  for (let i = 0; i < token.length; i++) {
    for (const c of characters) if (c !== token[i]) count(`${token.slice(0, i)}${c}${token.slice(i + 1)}`)
    count(`${token.slice(0, i)}${token.slice(i + 1)}`)
    for (const c of "A_.") count(`${token.slice(0, i)}${c}${token.slice(i)}`)
  }
  t.equal(outcomes.get("granted"), undefined, "none grants anything")
  t.ok((outcomes.get("tampered") ?? 0) > 4000, "an alteration within the alphabet is found by the signature")
  t.ok((outcomes.get("malformed") ?? 0) > 0, "one outside it, or a character more or less, is malformed")
  t.equal(outcomes.get("expired"), undefined, "no altered token is read far enough to be found expired")
})

t.test("truncated, over-long, invented and foreign tokens are refused", async (t) => {
  const artifactId = randomUUID()
  const token = tokenOf(mintLink(linkKey, artifactId, inFiveMinutes).path)
  t.equal(refusal(""), "malformed")
  t.equal(refusal(token.slice(0, -1)), "malformed", "truncated")
  t.equal(refusal(token.slice(0, 32)), "malformed", "the payload alone")
  t.equal(refusal(`${token}=`), "malformed", "padded")
  t.equal(refusal(`${token}${token}`), "malformed", "doubled")
  t.equal(refusal("A".repeat(1_000_000)), "malformed", "a megabyte")
  t.equal(refusal(`${"A".repeat(32)}.${"A".repeat(43)}`), "tampered", "invented in the right shape")
  t.equal(refusal(`${randomBytes(24).toString("base64url")}.${randomBytes(32).toString("base64url")}`), "tampered", "random")
  const [payload] = token.split(".")
  const otherSignature = tokenOf(mintLink(linkKey, randomUUID(), inFiveMinutes).path).split(".")[1]
  t.equal(refusal(`${payload}.${otherSignature}`), "tampered", "another link's signature")

  const otherServer = makeServerKey(randomBytes(32)).deriveKey(KEY_LABELS.artifactLinks)
  t.equal(refusal(tokenOf(mintLink(otherServer, artifactId, inFiveMinutes).path)), "tampered", "minted with another server key")
  const cursorKey = makeServerKey(randomBytes(32)).deriveKey(KEY_LABELS.cursors)
  t.equal(Either.isLeft(verifyLink(cursorKey, token, now)), true, "nor verified under another label's key")
})

t.test("a link never outlives its artifact", async (t) => {
  const soon = new Date(now.getTime() + 42_000)
  t.same(linkExpiry(now, 300, inFiveMinutes), inFiveMinutes)
  t.same(linkExpiry(now, 300, soon), soon, "the artifact expires first")
  t.same(linkExpiry(now, 60, inFiveMinutes), new Date(now.getTime() + 60_000), "the configured TTL")
  const artifactExpiresAt = new Date(now.getTime() + 42_999)
  const link = mintLink(linkKey, randomUUID(), linkExpiry(now, 300, artifactExpiresAt))
  t.ok(link.expiresAt <= artifactExpiresAt, "taken down to the second, not up")
  t.equal(refusal(tokenOf(link.path), artifactExpiresAt), "expired", "refused once the artifact has expired")
})

/** The ArtifactLinks service under `env`, with the test server key and a real HTTP server on a free port. */
const withLinks = <A>(env: Record<string, string>, use: (links: ArtifactLinks) => Effect.Effect<A, never, HttpServer.HttpServer>) => {
  const layer = Layer.merge(
    ArtifactLinks.Default.pipe(Layer.provide(TestServerKey)),
    NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })
  )
  return Effect.runPromise(
    Effect.flatMap(ArtifactLinks, use).pipe(
      Effect.provide(layer),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
    )
  )
}

t.test("the service: a link of the configured TTL, verified, with its href", async (t) => {
  const artifactId = randomUUID()
  const result = await withLinks(
    { PRESSROOM_LINK_TTL_SECONDS: "60", PRESSROOM_PUBLIC_BASE_URL: "https://pdf.example.com/press/" },
    (links) =>
      Effect.gen(function* () {
        const before = Date.now()
        const link = yield* links.mint(artifactId, new Date(before + 3_600_000))
        return {
          before,
          link,
          granted: yield* Effect.either(links.verify(tokenOf(link.path))),
          href: yield* links.href(link.path)
        }
      }).pipe(Effect.orDie)
  )
  t.ok(result.link.expiresAt.getTime() <= result.before + 60_000 && result.link.expiresAt.getTime() > result.before + 58_000, "60 s")
  t.same(result.granted, Either.right(artifactId))
  t.equal(result.href, `https://pdf.example.com/press${result.link.path}`)

  const listening = await withLinks({}, (links) =>
    Effect.gen(function* () {
      const link = yield* links.mint(artifactId, new Date(Date.now() + 900_000))
      return { link, href: yield* links.href(link.path) }
    })
  )
  t.match(listening.href, new RegExp(`^http://127\\.0\\.0\\.1:(\\d+)${listening.link.path}$`), "under the address listened on")
  t.not(/:(\d+)\//.exec(listening.href)?.[1], "0", "the port the system gave, not PORT=0")
  t.ok(listening.link.expiresAt.getTime() <= Date.now() + 300_000, "300 s by default")
})

t.test("PRESSROOM_LINK_TTL_SECONDS: 1 to 300", async (t) => {
  const ttl = (value: string) =>
    Effect.runSyncExit(Effect.withConfigProvider(linkTtlConfig, ConfigProvider.fromMap(new Map([["PRESSROOM_LINK_TTL_SECONDS", value]]))))
  t.same(ttl("1"), Exit.succeed(1))
  t.same(ttl("300"), Exit.succeed(300))
  for (const value of ["0", "301", "3600", "-5", "1.5"]) t.ok(Exit.isFailure(ttl(value)), `${value} refused`)

  const refused = await refusedStart({ PRESSROOM_LINK_TTL_SECONDS: "301" })
  t.equal(refused.code, 1, refused.output)
  t.match(refused.output, "PRESSROOM_LINK_TTL_SECONDS must be from 1 to 300")
})

t.test("PRESSROOM_PUBLIC_BASE_URL: an http or https URL, its trailing slashes dropped", async (t) => {
  const base = (value: string) =>
    Effect.runSyncExit(
      Effect.withConfigProvider(publicBaseUrlConfig, ConfigProvider.fromMap(new Map([["PRESSROOM_PUBLIC_BASE_URL", value]])))
    )
  t.same(base("https://pdf.example.com/"), Exit.succeed(Option.some("https://pdf.example.com")))
  t.same(base("http://10.0.0.5:8080/press//"), Exit.succeed(Option.some("http://10.0.0.5:8080/press")))
  t.same(base(""), Exit.succeed(Option.none()), "empty is unset")
  for (const value of ["pdf.example.com", "ftp://pdf.example.com", "https://pdf.example.com/?a=1", "https://user:pw@pdf.example.com"]) {
    t.ok(Exit.isFailure(base(value)), `${value} refused`)
  }
})
