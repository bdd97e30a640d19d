/** A command line that cannot be carried out as written: printed as one line, exit code 2. */
export class UsageError extends Error {
  readonly _tag = "UsageError"
}
