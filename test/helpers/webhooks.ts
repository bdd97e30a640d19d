/**
 * What the webhook tests do as a customer: subscribe an account to a path of the test receiver,
 * read a subscription back, and run a v2 job of the account to its end; and the receiver with a
 * server that trusts its CA.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { requestJson, type TestAccount } from "./api.ts"
import type { TestDatabase } from "./database.ts"
import { type RunningServer, startServer } from "./server.ts"
import type { TestContext } from "./tap.ts"
import { awaitJob, mutate, newDocument, preview, publish } from "./v2.ts"
import { startReceiver } from "./webhook-receiver.ts"

export const ALL_TYPES = ["job.succeeded", "job.failed", "job.cancelled"]

export const webhookClient = (server: RunningServer, receiver: Awaited<ReturnType<typeof startReceiver>>) => ({
  /** A subscription of `account` to `path`; answers its id and signing secret. */
  subscribe: async (account: TestAccount, path: string, eventTypes = ALL_TYPES) => {
    const created = await mutate(server, "POST", "/api/v2/webhooks", account.key, { endpoint: receiver.endpoint(path), eventTypes })
    if (created.status !== 201) throw new Error(`subscription failed: ${created.status} ${JSON.stringify(created.body)}`)
    return { id: created.body.subscription.id as string, secret: created.body.secret.signingSecret as string }
  },
  subscriptionOf: async (account: TestAccount, id: string) =>
    (await requestJson(server, "GET", "/api/v2/webhooks", { token: account.key })).body.subscriptions.find(
      (s: { id: string }) => s.id === id
    ),
  /** The subscription's deliveries as its history lists them, newest first. */
  deliveriesOf: async (account: TestAccount, id: string): Promise<Array<any>> =>
    (await requestJson(server, "GET", `/api/v2/webhooks/${id}/deliveries`, { token: account.key })).body.deliveries,
  /** A job of `account` run to its end: a preview unless `final`. */
  render: async (account: TestAccount, options: { final?: boolean; markdown?: string } = {}) => {
    const { documentId, revisionId } = await newDocument(server, account.key, options.markdown ? { markdown: options.markdown } : {})
    const admitted = await (options.final ? publish : preview)(server, account.key, documentId, revisionId)
    return (await awaitJob(server, account.key, admitted.body.job.id)).body
  }
})

/**
 * A receiver and a server on `database` that trusts the receiver's CA and, unless `env` says
 * otherwise, may deliver to loopback.
 */
export const startWebhookServer = async (t: TestContext, database: TestDatabase, env: Readonly<Record<string, string>>) => {
  const receiver = await startReceiver(t, mkdtempSync(join(tmpdir(), "pressroom-webhooks-")))
  const server = await startServer(t, {
    ...database.env,
    NODE_EXTRA_CA_CERTS: receiver.caFile,
    PRESSROOM_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    ...env
  })
  return { receiver, server, ...webhookClient(server, receiver) }
}
