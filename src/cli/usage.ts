/**
 * Each command's usage line, here rather than in the command's module so that `pressroom --help`
 * and a mistyped command answer without loading any command (main.ts loads only the one it runs).
 */
export const renderUsage =
  "usage: pressroom render <file.md | -> --template <id> [--locale <locale>] [--option key=value ...] -o <out.pdf> [--provenance <out.json>]"
export const serveUsage = "usage: pressroom serve"
export const migrateUsage = "usage: pressroom migrate"
export const accountsUsage =
  "usage: pressroom accounts create --name <name> --plan <plan> [--monthly-units <n>] | accounts show <accountId> | accounts invite <accountId> <email>"
export const keysUsage =
  "usage: pressroom keys create --account <accountId> [--name <name>] [--scope <scope> ...] [--environment live|test] [--expires-at <ISO date-time>] | keys list --account <accountId> | keys revoke <keyId>"
export const auditUsage = "usage: pressroom audit <jobId>... [--json]"
export const actionUsage = "usage: pressroom action (the GitHub Action's step: inputs from INPUT_* variables, see action.yml)"
export const mcpUsage = "usage: pressroom mcp (with PRESSROOM_URL and PRESSROOM_API_KEY set)"
export const creditsUsage = "usage: pressroom credits add --account <accountId> --packs <n>"

/** A command line that cannot be carried out as written: printed as one line, exit code 2. */
export class UsageError extends Error {
  readonly _tag = "UsageError"
}
