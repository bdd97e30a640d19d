/**
 * The address guard (issue 20, SSRF): every range that is not global unicast is refused with its
 * reason, IPv4 addresses carried inside IPv6 (mapped, NAT64, 6to4, Teredo) are judged by the IPv4
 * inside, and public addresses pass. The guard only judges text: nothing here touches a network.
 */
import t from "tap"
import { addressRefusal } from "../../src/webhooks/address-guard.ts"

const REFUSED: ReadonlyArray<readonly [address: string, reason: string]> = [
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["10.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["100.64.0.1", "carrier-grade NAT"],
  ["100.127.255.255", "carrier-grade NAT"],
  ["169.254.169.254", "link-local"],
  ["169.254.0.1", "link-local"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["255.255.255.255", "broadcast"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.1", "reserved"],
  ["198.51.100.7", "reserved"],
  ["203.0.113.9", "reserved"],
  ["198.18.0.1", "reserved"],
  ["192.88.99.1", "reserved"],
  ["192.175.48.1", "reserved"],
  ["::1", "loopback"],
  ["::", "unspecified"],
  ["fc00::1", "unique local"],
  ["fd12:3456:789a::1", "unique local"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["fec0::1", "site-local"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "reserved"],
  ["3fff::1", "reserved"],
  ["100::1", "reserved"],
  ["64:ff9b:1::a00:1", "reserved"],
  ["::7f00:1", "reserved"],
  ["::ffff:0:7f00:1", "reserved"],
  ["4000::1", "reserved"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.1.2.3", "private"],
  ["::ffff:a9fe:a9fe", "link-local"],
  ["::ffff:0.0.0.0", "unspecified"],
  ["::127.0.0.1", "loopback"],
  ["64:ff9b::7f00:1", "loopback inside NAT64"],
  ["64:ff9b::169.254.169.254", "link-local inside NAT64"],
  ["2002:7f00:1::1", "loopback inside 6to4"],
  ["2002:c0a8:101::1", "private inside 6to4"],
  // Teredo: the server's IPv4 in bits 32 to 63, the client's inverted in the last 32 bits.
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback inside Teredo"],
  ["2001:0:a00:1:8000:63bf:a247:27dd", "private inside Teredo"],
  ["example.com", "not an IP address"],
  ["", "not an IP address"]
]

const PUBLIC = [
  "93.184.216.34",
  "8.8.8.8",
  "1.1.1.1",
  "2606:4700::1111",
  "2a00:1450:4001:82a::200e",
  "::ffff:93.184.216.34",
  "64:ff9b::5db8:d822",
  "2002:5db8:d822::1",
  "2001:0:4136:e378:8000:63bf:a247:27dd"
]

t.test("every range that is not global unicast is refused, with its reason", async (t) => {
  for (const [address, reason] of REFUSED) t.equal(addressRefusal(address), reason, address)
})

t.test("public addresses pass, also when carried inside IPv6", async (t) => {
  for (const address of PUBLIC) t.equal(addressRefusal(address), null, address)
})

t.test("the edges of a refused range are exact", async (t) => {
  t.equal(addressRefusal("100.63.255.255"), null)
  t.equal(addressRefusal("100.128.0.0"), null)
  t.equal(addressRefusal("172.15.255.255"), null)
  t.equal(addressRefusal("172.32.0.0"), null)
  t.equal(addressRefusal("169.253.255.255"), null)
  t.equal(addressRefusal("223.255.255.255"), null)
  t.equal(addressRefusal("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), "reserved")
  t.equal(addressRefusal("2000::1"), null)
})
