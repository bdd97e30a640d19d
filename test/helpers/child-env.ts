/**
 * The environment of a process a test starts as a user would start it: the test's own, without
 * the NODE_OPTIONS that tap sets so as to follow child processes (coverage bookkeeping, which this
 * suite turns off). Left in, it loads tap's hooks into every server and command a test starts,
 * about a second and a half of each start.
 */
export const childEnv = (extra: Readonly<Record<string, string | undefined>> = {}): NodeJS.ProcessEnv => {
  const { NODE_OPTIONS: _, ...inherited } = process.env
  return { ...inherited, ...extra }
}
