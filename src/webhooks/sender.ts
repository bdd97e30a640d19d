/**
 * One attempt at a webhook delivery: a single HTTPS POST to a subscriber's endpoint (contract
 * section 10), which the dispatcher signs and records. It never fails: every ending is a result.
 *
 * The endpoint is resolved once, every address it resolves to is judged by the address guard, and
 * the connection goes to those checked addresses: `https.request` is given a lookup that answers
 * with them instead of asking DNS again, since a second answer could name another address (DNS
 * rebinding). The URL's host name stays the TLS server name and the Host header, so the
 * certificate is still checked against the name the subscriber gave.
 */
import { Effect } from "effect"
import { type LookupAddress, lookup as dnsLookup } from "node:dns"
import { request as httpsRequest } from "node:https"
import { isIP, type LookupFunction } from "node:net"
import { addressRefusal } from "./address-guard.ts"

/** How a host name resolves: every address it has. */
export type Lookup = (hostname: string) => Promise<ReadonlyArray<LookupAddress>>

export interface Delivery {
  /** The subscription's endpoint: only https is sent to. */
  readonly url: string
  /** Sent as given (the dispatcher's content type and signature headers), with Content-Length. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** Bounds the whole attempt: resolution, connection, TLS, the response's headers and body. */
  readonly timeoutMs: number
  /** PRESSROOM_WEBHOOK_ALLOW_PRIVATE_NETWORKS: no address is refused. */
  readonly allowPrivateNetworks: boolean
  /** The resolver; `dns.lookup` with `all: true` unless given (tests have no DNS). */
  readonly lookup?: Lookup
  /**
   * Certificate authorities trusted instead of Node's own. For tests, which make their CA after the
   * process started: the server trusts a private CA through NODE_EXTRA_CA_CERTS (contract section 1).
   */
  readonly ca?: string
}

export type SendResult =
  /** The endpoint answered: 2xx is delivered, anything else failed (a 3xx with the reason that redirects are not followed). */
  | {
      readonly outcome: "delivered" | "failed"
      readonly status: number
      readonly durationMs: number
      /** The start of the response body, for delivery history. */
      readonly excerpt: string
      readonly reason?: string
    }
  /** No answer: refused before anything was sent (the URL or its addresses), or failed on the way. */
  | { readonly outcome: "refused" | "failed"; readonly reason: string; readonly durationMs: number }

/** The excerpt kept of a response body, and how much of it is read before the socket is closed. */
export const EXCERPT_BYTES = 1024
export const READ_LIMIT_BYTES = 64 * 1024

const resolveAll: Lookup = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))))

/** Sends one delivery. Interrupting it closes the connection. */
export const send = (delivery: Delivery): Effect.Effect<SendResult> => Effect.promise((interrupted) => attempt(delivery, interrupted))

/**
 * The attempt under its deadline. The deadline is a timer this attempt holds, not
 * `AbortSignal.timeout` combined with `AbortSignal.any`: Node keeps such a timeout signal alive
 * only while something listens to it, and a collection under load could take it with its timer, so
 * an endpoint that never answered held its attempt for good (seen in CI on 2026-11-26).
 */
const attempt = async (delivery: Delivery, interrupted: AbortSignal): Promise<SendResult> => {
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(new Error("timeout")), delivery.timeoutMs)
  const onInterrupt = () => deadline.abort(interrupted.reason)
  if (interrupted.aborted) onInterrupt()
  interrupted.addEventListener("abort", onInterrupt, { once: true })
  try {
    return await attemptUntil(delivery, deadline.signal)
  } finally {
    clearTimeout(timer)
    interrupted.removeEventListener("abort", onInterrupt)
  }
}

const attemptUntil = async (delivery: Delivery, signal: AbortSignal): Promise<SendResult> => {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const ended = (outcome: "refused" | "failed", reason: string): SendResult => ({ outcome, reason, durationMs: elapsed() })

  if (!URL.canParse(delivery.url)) return ended("refused", "not a URL")
  // The WHATWG parser has already turned every spelling of an IPv4 address (2130706433, 0x7f.1,
  // 127.1) into dotted decimal and put IPv6 addresses in brackets in their compressed form.
  const url = new URL(delivery.url)
  if (url.protocol !== "https:") return ended("refused", "not https")
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1")

  let addresses: ReadonlyArray<LookupAddress>
  try {
    const family = isIP(host)
    addresses = family !== 0 ? [{ address: host, family }] : await abortable((delivery.lookup ?? resolveAll)(host), signal)
  } catch (error) {
    return signal.aborted ? ended("failed", "timeout") : ended("failed", `host not resolved (${describe(error)})`)
  }
  if (addresses.length === 0) return ended("failed", "host has no address")
  if (!delivery.allowPrivateNetworks) {
    for (const { address } of addresses) {
      const refusal = addressRefusal(address)
      if (refusal !== null) return ended("refused", `${address} is ${refusal}`)
    }
  }

  try {
    const { status, excerpt } = await post(url, host, addresses, delivery, signal)
    const outcome = status >= 200 && status < 300 ? "delivered" : "failed"
    const redirect = status >= 300 && status < 400 ? { reason: "redirect not followed" } : {}
    return { outcome, status, durationMs: elapsed(), excerpt, ...redirect }
  } catch (error) {
    return signal.aborted ? ended("failed", "timeout") : ended("failed", `connection failed (${describe(error)})`)
  }
}

/**
 * A lookup for `https.request` that answers with the addresses already checked, never asking DNS.
 * Node asks for all of them when it tries several addresses in turn (autoSelectFamily).
 */
const pinnedLookup =
  (addresses: ReadonlyArray<LookupAddress>): LookupFunction =>
  (_hostname, options, callback) => {
    if (options.all) callback(null, addresses as Array<LookupAddress>)
    else callback(null, addresses[0]!.address, addresses[0]!.family)
  }

/** The POST itself: the status and the excerpt of the body, once the body ended or the read limit was reached. */
const post = (url: URL, host: string, addresses: ReadonlyArray<LookupAddress>, delivery: Delivery, signal: AbortSignal) =>
  new Promise<{ status: number; excerpt: string }>((resolve, reject) => {
    const request = httpsRequest(
      {
        method: "POST",
        hostname: host,
        port: url.port === "" ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: { ...delivery.headers, "content-length": Buffer.byteLength(delivery.body) },
        lookup: pinnedLookup(addresses),
        // A connection of its own, closed after this attempt: no pool shared between deliveries.
        agent: false,
        ca: delivery.ca,
        signal
      },
      (response) => {
        const kept: Array<Buffer> = []
        let keptBytes = 0
        let readBytes = 0
        const finish = () => {
          request.destroy()
          if (signal.aborted) reject(signal.reason)
          else resolve({ status: response.statusCode!, excerpt: new TextDecoder().decode(Buffer.concat(kept).subarray(0, EXCERPT_BYTES)) })
        }
        response.on("data", (chunk: Buffer) => {
          if (keptBytes < EXCERPT_BYTES) {
            kept.push(chunk)
            keptBytes += chunk.length
          }
          readBytes += chunk.length
          if (readBytes >= READ_LIMIT_BYTES) finish()
        })
        // The status decides the outcome; a body cut short by the endpoint still has its status.
        response.on("end", finish)
        response.on("error", finish)
        response.on("close", finish)
      }
    )
    request.on("error", reject)
    request.end(delivery.body)
  })

/** A promise that gives up when the signal aborts (dns.lookup itself cannot be cancelled). */
const abortable = <A>(promise: Promise<A>, signal: AbortSignal): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => reject(signal.reason)
    signal.addEventListener("abort", onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort))
  })

/**
 * What went wrong, by Node's error code where there is one (ECONNREFUSED, CERT_HAS_EXPIRED, ...).
 * Only the error is described: the request's headers carry signatures and never appear here.
 */
const describe = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === "string") return code
  return error instanceof Error && error.message !== "" ? error.message.slice(0, 200) : "unknown error"
}
