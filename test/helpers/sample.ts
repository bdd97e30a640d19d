/**
 * Render-bound corpora checked whole or on a sample (docs/testing.md, "The budget"). The main run
 * (`npm test`, .ci/run) checks a deterministic sample: every `stride`th case, each locale or input
 * still met. `PRESSROOM_TEST_FULL=1` (`npm run test:full`) checks every case, as a separate job.
 */

/** Whether this run checks the render-bound corpora whole. */
export const fullRun = process.env.PRESSROOM_TEST_FULL === "1"

/** Every case in a full run; otherwise those whose index is `offset` modulo `stride`, the same ones every run. */
export const sampled = <A>(items: ReadonlyArray<A>, stride: number, offset = 0): ReadonlyArray<A> =>
  fullRun ? items : items.filter((_, i) => i % stride === offset % stride)

/** How a sampled test names its share: "all 57" or "9 of 57 (PRESSROOM_TEST_FULL=1 for all)". */
export const share = (taken: number, all: number): string =>
  taken === all ? `all ${all}` : `${taken} of ${all} (PRESSROOM_TEST_FULL=1 for all)`
