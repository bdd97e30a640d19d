/**
 * The `pressroom` command. Every failure ends in one line on stderr: exit 2 for a command line
 * that cannot be carried out as written, 1 for anything else. A command may also end with the exit
 * code its result calls for (`audit`: 1 when a check differs).
 */
import {
  accountsUsage,
  actionUsage,
  auditUsage,
  creditsUsage,
  keysUsage,
  mcpUsage,
  migrateUsage,
  renderUsage,
  serveUsage,
  UsageError
} from "./usage.ts"

/** A command's exit code when it decides one (`audit`: 1 when a check differs); otherwise 0. */
type Run = (argv: ReadonlyArray<string>) => Promise<void> | Promise<number>

/**
 * Each command's module is loaded when it runs, not before: an account command then loads neither
 * the HTTP server nor the renderer, 0.9 s of its start (docs/performance.md, "Memory"); the build
 * (scripts/build.ts) gives each a chunk of its own. Import commands here only, at start: a build
 * removes the chunks of the one before, which a process started earlier would no longer find.
 */
const commands: Readonly<Record<string, { readonly usage: string; readonly load: () => Promise<Run> }>> = {
  render: { usage: renderUsage, load: async () => (await import("./render.ts")).runRender },
  serve: { usage: serveUsage, load: async () => (await import("./serve.ts")).runServe },
  migrate: { usage: migrateUsage, load: async () => (await import("./migrate.ts")).runMigrate },
  accounts: { usage: accountsUsage, load: async () => (await import("./accounts.ts")).runAccounts },
  keys: { usage: keysUsage, load: async () => (await import("./accounts.ts")).runKeys },
  credits: { usage: creditsUsage, load: async () => (await import("./accounts.ts")).runCredits },
  audit: { usage: auditUsage, load: async () => (await import("./audit.ts")).runAudit },
  action: { usage: actionUsage, load: async () => (await import("./action.ts")).runActionCommand },
  mcp: { usage: mcpUsage, load: async () => (await import("./mcp.ts")).runMcp }
}

/** Commands that open no database: they render with the library, or talk to a server. */
const withoutDatabase = new Set(["render", "action", "mcp"])

const usage = [
  "usage: pressroom <command> [arguments]",
  "",
  "commands:",
  ...Object.values(commands).map(({ usage }) => `  ${usage.replace("usage: pressroom ", "")}`)
].join("\n")

const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const [name, ...rest] = argv
  if (!name || name === "--help" || name === "-h") {
    process.stdout.write(`${usage}\n`)
    return name ? 0 : 2
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined
  if (!command) {
    process.stderr.write(`pressroom: unknown command '${name}' (try pressroom --help)\n`)
    return 2
  }
  try {
    // The other commands open the database (their usage does not).
    if (!withoutDatabase.has(name) && !rest.includes("--help")) (await import("./folder-check.ts")).refuseHeldFolder()
    return (await (await command.load())(rest)) ?? 0
  } catch (error) {
    const usageProblem = error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")
    const message = error instanceof Error ? error.message : String(error)
    process.stderr.write(`pressroom ${name}: ${message.split("\n")[0]}\n`)
    return usageProblem ? 2 : 1
  }
}

process.exitCode = await main(process.argv.slice(2))
