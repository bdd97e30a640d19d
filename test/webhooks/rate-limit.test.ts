/**
 * The rate classes of the webhook operations (contract section 7): the list spends a READ token,
 * the mutations WRITE tokens; a 429 carries Retry-After and creates nothing.
 */
import t from "tap"
import { createAccount, requestJson } from "../helpers/api.ts"
import { forEachDatabase } from "../helpers/database.ts"
import { startServer } from "../helpers/server.ts"
import { mutate } from "../helpers/v2.ts"
import { expectError } from "../helpers/v2-contract.ts"

t.test("webhook rate classes", (t) =>
  forEachDatabase(t, async (t, database) => {
    const server = await startServer(t, {
      ...database.env,
      PRESSROOM_RATE_LIMIT_WRITE_PER_MINUTE: "2",
      PRESSROOM_RATE_LIMIT_READ_PER_MINUTE: "1"
    })
    const { key: token } = await createAccount(server)
    const body = { endpoint: "https://hooks.example.com/", eventTypes: ["job.failed"] }
    const created = await mutate(server, "POST", "/api/v2/webhooks", token, body)
    t.equal(created.status, 201)
    t.equal((await mutate(server, "POST", `/api/v2/webhooks/${created.body.subscription.id}/rotate-secret`, token, {})).status, 200)
    const limited = await mutate(server, "POST", "/api/v2/webhooks", token, body)
    expectError(t, limited, 429, "rate_limited", "a third write in the minute", { retryable: true })
    t.match(limited.headers.get("retry-after"), /^[1-9][0-9]*$/)
    t.equal(limited.body.error.details.retryAfterSeconds, Number(limited.headers.get("retry-after")))
    const disabled = await mutate(server, "POST", `/api/v2/webhooks/${created.body.subscription.id}/disable`, token, {})
    expectError(t, disabled, 429, "rate_limited", "disable is a write too", { retryable: true })

    const listed = await requestJson(server, "GET", "/api/v2/webhooks", { token })
    t.equal(listed.status, 200, "the list spends a read token, not a write")
    t.equal(listed.body.subscriptions.length, 1, "the limited creation made nothing")
    t.match(listed.body.subscriptions[0], { status: "active", currentSecretVersion: 2 }, "nor did the limited disabling")
    expectError(t, await requestJson(server, "GET", "/api/v2/webhooks", { token }), 429, "rate_limited", "a second read", {
      retryable: true
    })
  })
)
