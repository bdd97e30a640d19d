/** pressroom action: the GitHub Action's entry (action.yml; src/action/run.ts). */
import { runAction } from "../action/run.ts"
import { actionUsage, UsageError } from "./usage.ts"

export const runActionCommand = async (argv: ReadonlyArray<string>): Promise<number> => {
  // Its inputs come from the runner's INPUT_* variables, never from the command line.
  if (argv.length > 0) throw new UsageError(actionUsage)
  return runAction()
}
