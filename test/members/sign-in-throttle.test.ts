/** The throttle's rule (contract section 12): ten failures within 15 minutes lock the email for 15 minutes from the tenth. */
import t from "tap"
import { lockedAt, MAX_FAILURES, WINDOW_MS } from "../../src/members/sign-in-throttle.ts"

const MINUTE = 60_000
const start = Date.UTC(2026, 10, 27, 12)
/** Failures at `minutes` after `start`, newest first as the database gives them. */
const failures = (...minutes: Array<number>) => minutes.map((m) => new Date(start + m * MINUTE)).sort((a, b) => b.getTime() - a.getTime())
const tenWithin = (spanMinutes: number) =>
  failures(...Array.from({ length: MAX_FAILURES }, (_, i) => (i * spanMinutes) / (MAX_FAILURES - 1)))

t.equal(WINDOW_MS, 15 * MINUTE)
t.notOk(lockedAt(failures(0, 1, 2, 3, 4, 5, 6, 7, 8), start + 9 * MINUTE), "nine failures lock nothing")
t.ok(lockedAt(tenWithin(14), start + 14 * MINUTE), "ten within 15 minutes lock the email")
t.ok(lockedAt(tenWithin(14), start + 28.9 * MINUTE), "for 15 minutes after the tenth")
t.notOk(lockedAt(tenWithin(14), start + 29 * MINUTE), "and no longer")
t.notOk(lockedAt(tenWithin(16), start + 16 * MINUTE), "ten spread over more than 15 minutes lock nothing")
t.ok(lockedAt(failures(0, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29), start + 30 * MINUTE), "any ten consecutive within the window count")
