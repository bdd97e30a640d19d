import type t from "tap"

/** The `t` of a test: the root test or any subtest (tap's overloads hide it otherwise). */
export type TestContext = Parameters<Parameters<typeof t.test>[0]>[0]
