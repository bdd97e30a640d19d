/**
 * The server key of every test process on PostgreSQL: one fixed value, so that the processes of a
 * cluster test verify one another's links and cursors as a real cluster given one key does.
 */
import { Layer } from "effect"
import { makeServerKey, ServerKey } from "../../src/shared/server-key.ts"

export const TEST_SERVER_KEY = Buffer.from("pressroom-test-server-key-012345").toString("base64")

/** The test key as the platform's edge, for in-process tests (`platformOver`). */
export const TestServerKey = Layer.succeed(ServerKey, makeServerKey(Buffer.from(TEST_SERVER_KEY, "base64")))
