/**
 * The `pressroom` command. Every failure ends in one line on stderr: exit 2 for a command line
 * that cannot be carried out as written, 1 for anything else.
 */
import { accountsUsage, creditsUsage, keysUsage, runAccounts, runCredits, runKeys } from "./accounts.ts"
import { migrateUsage, runMigrate } from "./migrate.ts"
import { renderUsage, runRender } from "./render.ts"
import { runServe, serveUsage } from "./serve.ts"
import { UsageError } from "./usage-error.ts"

const commands: Readonly<Record<string, (argv: ReadonlyArray<string>) => Promise<void>>> = {
  render: runRender,
  serve: runServe,
  migrate: runMigrate,
  accounts: runAccounts,
  keys: runKeys,
  credits: runCredits
}

const usage = ["usage: pressroom <command> [arguments]", "", "commands:", ...[renderUsage, serveUsage, migrateUsage, accountsUsage, keysUsage, creditsUsage].map((line) => `  ${line.replace("usage: pressroom ", "")}`)].join("\n")

const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const [name, ...rest] = argv
  if (!name || name === "--help" || name === "-h") {
    process.stdout.write(usage + "\n")
    return name ? 0 : 2
  }
  const command = commands[name]
  if (!command) {
    process.stderr.write(`pressroom: unknown command '${name}' (try pressroom --help)\n`)
    return 2
  }
  try {
    await command(rest)
    return 0
  } catch (error) {
    const usageProblem = error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")
    const message = error instanceof Error ? error.message : String(error)
    process.stderr.write(`pressroom ${name}: ${message.split("\n")[0]}\n`)
    return usageProblem ? 2 : 1
  }
}

process.exitCode = await main(process.argv.slice(2))
