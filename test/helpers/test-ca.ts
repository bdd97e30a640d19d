/**
 * A certificate authority made for one test run, and server certificates it signs: what a
 * customer's webhook receiver on 127.0.0.1 presents, trusted by the sender through its `ca` option
 * or by a server process through NODE_EXTRA_CA_CERTS.
 */
import { generate } from "selfsigned"

export interface TestCa {
  readonly cert: string
  readonly private: string
}

export const makeTestCa = (): Promise<TestCa> =>
  generate([{ name: "commonName", value: "Pressroom test CA" }], {
    keyType: "ec",
    algorithm: "sha256",
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true }
    ]
  })

/** A server certificate from `ca` for `dnsName` (if any) and 127.0.0.1. */
export const serverCertificate = (ca: TestCa, dnsName?: string): Promise<{ cert: string; private: string }> =>
  generate([{ name: "commonName", value: dnsName ?? "127.0.0.1" }], {
    keyType: "ec",
    algorithm: "sha256",
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [...(dnsName ? [{ type: 2 as const, value: dnsName }] : []), { type: 7 as const, ip: "127.0.0.1" }]
      }
    ]
  })
