/**
 * Which IP addresses may receive a webhook delivery (contract section 10, issue 20): global unicast
 * only. A subscriber chooses the endpoint, so without this rule a delivery could be aimed at the
 * server's own loopback services, its private network or a cloud metadata address (SSRF).
 *
 * ipaddr.js names the ranges of the IANA special-purpose registries, and only an address in none of
 * them is `unicast`. For IPv4 it names every special range: unspecified (0/8), broadcast, multicast,
 * link-local (169.254/16, with 169.254.169.254), loopback, carrier-grade NAT (100.64/10), private
 * (RFC 1918), reserved (192.0.0/24, the three documentation ranges, 192.88.99/24, 198.18/15, 240/4),
 * AS112 and AMT. For IPv6 it names unspecified, loopback, link-local, multicast, unique local
 * (fc00::/7), site-local, IPv4-mapped and IPv4-translated, NAT64, 6to4, Teredo, documentation and
 * the other special blocks, but calls `unicast` whatever else is left, unassigned space included.
 * This module adds:
 * - for IPv6, that only 2000::/3 is global unicast (so `::127.0.0.1`, the deprecated
 *   IPv4-compatible form, and the rest of unassigned space are reserved);
 * - the addresses that carry an IPv4 address the network will reach: IPv4-mapped (::ffff:0:0/96,
 *   a dual-stack socket connects to the IPv4 inside), NAT64 (64:ff9b::/96, RFC 6052), 6to4
 *   (2002::/16, RFC 3056) and Teredo (2001::/32, RFC 4380: its server and its obfuscated client
 *   address); each is judged by the IPv4 addresses inside and is refused when one is refused.
 *   ipaddr.js also reads the deprecated IPv4-compatible text `::a.b.c.d` as IPv4-mapped, so it is
 *   judged by its IPv4 too, while the same address in hexadecimal (`::7f00:1`) is reserved: both
 *   are refused unless that IPv4 is public, and then only a tunnel could reach it.
 */
import ipaddr from "ipaddr.js"

/** Reasons read in delivery history, for ipaddr.js's range names. */
const REASONS: Readonly<Record<string, string>> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT",
  private: "private",
  uniqueLocal: "unique local",
  deprecatedSiteLocal: "site-local"
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3")
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96")

const reasonFor = (range: string) => REASONS[range] ?? "reserved"

const refusalV4 = (address: ipaddr.IPv4): string | null => {
  const range = address.range()
  return range === "unicast" ? null : reasonFor(range)
}

/** The IPv4 address in 16 bits of an IPv6 address's segments, from `at`, inverted for Teredo. */
const ipv4At = (address: ipaddr.IPv6, at: number, invert = false): ipaddr.IPv4 => {
  const high = address.parts[at]! ^ (invert ? 0xffff : 0)
  const low = address.parts[at + 1]! ^ (invert ? 0xffff : 0)
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])
}

/** The first refusal among the IPv4 addresses embedded in a tunnelling form, named after the form. */
const refusalInside = (form: string, embedded: ReadonlyArray<ipaddr.IPv4>): string | null => {
  for (const inside of embedded) {
    const refusal = refusalV4(inside)
    if (refusal !== null) return `${refusal} inside ${form}`
  }
  return null
}

const refusalV6 = (address: ipaddr.IPv6): string | null => {
  const range = address.range()
  if (range === "ipv4Mapped") return refusalV4(address.toIPv4Address())
  if (address.match(NAT64_WELL_KNOWN)) return refusalInside("NAT64", [ipv4At(address, 6)])
  if (range === "6to4") return refusalInside("6to4", [ipv4At(address, 1)])
  if (range === "teredo") return refusalInside("Teredo", [ipv4At(address, 2), ipv4At(address, 6, true)])
  if (range !== "unicast") return reasonFor(range)
  return address.match(GLOBAL_UNICAST_V6) ? null : "reserved"
}

/**
 * Why `address` (an IPv4 or IPv6 address as text, as a resolver or the URL parser gives it) may not
 * receive a delivery, or null when it may.
 */
export const addressRefusal = (address: string): string | null => {
  if (!ipaddr.isValid(address)) return "not an IP address"
  const parsed = ipaddr.parse(address)
  return parsed instanceof ipaddr.IPv4 ? refusalV4(parsed) : refusalV6(parsed)
}
