/**
 * The admin API on the command line (contract section 9), on the configured database
 * (`DATABASE_URL`, else PGlite under `PRESSROOM_DATA_DIR`; an embedded database belongs to one
 * process at a time, so stop the server first or use the admin API):
 *
 *   pressroom accounts create --name <name> --plan <plan> [--monthly-units <n>]
 *   pressroom accounts show <accountId>
 *   pressroom accounts invite <accountId> <email>
 *   pressroom keys create --account <accountId> [--name <name>] [--scope <scope> ...] [--environment live|test] [--expires-at <ISO date-time>]
 *   pressroom keys list --account <accountId>
 *   pressroom keys revoke <keyId>
 *   pressroom credits add --account <accountId> --packs <n>
 *
 * Each prints the admin API's response body as JSON. An invitation's URL is under
 * `PRESSROOM_PUBLIC_BASE_URL`, else the address `serve` listens on by `HOST` and `PORT`. Flags are decoded by the API's own request
 * schemas and the work is done by the same `AccountAdministration`, so both refuse the same input.
 */
import { Cause, Effect, Either, Exit, Layer, Option, ParseResult, Schema } from "effect"
import { parseArgs } from "node:util"
import {
  AccountCreated,
  AccountDetail,
  AddCreditPacksRequest,
  CreateAccountRequest,
  CreateKeyRequest,
  CreditPacksAdded,
  KeyCreated,
  KeyList,
  KeyRevoked
} from "../accounts/administration-bodies.ts"
import { AccountAdministration } from "../accounts/administration.ts"
import { publicBaseUrlConfig } from "../artifacts/config.ts"
import { MigratedDatabaseLive } from "../db/layer.ts"
import { listenConfig } from "../http/config.ts"
import { InvitationCreated, InviteRequest } from "../members/invitation-bodies.ts"
import { inviteMember } from "../members/invitations.ts"
import { Members } from "../members/members.ts"
import { isPressroomError, type PressroomError, publishingError } from "../shared/errors.ts"
import { accountsUsage, creditsUsage, keysUsage, UsageError } from "./usage.ts"

/** A flag's digits as a number; anything else stays a string, for the schema to refuse by name. */
const integerFlag = (text: string | undefined): number | string | undefined =>
  text !== undefined && /^-?\d+$/.test(text) ? Number(text) : text

/**
 * `input` decoded by the API's request `schema`; a refusal names the flag (`flags` maps each field
 * to its flag) and is a usage error, as a 400 is over HTTP.
 */
const decodeFlags = <A, I>(schema: Schema.Schema<A, I>, input: unknown, flags: Readonly<Record<string, string>>): A =>
  Either.getOrThrowWith(Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })(input), (error) => {
    const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
    const field = String(issue?.path[0] ?? "")
    return new UsageError(`${flags[field] ?? field}: ${issue?.message ?? "invalid"}`)
  })

const required = (value: string | undefined, flag: string, usage: string): string => {
  if (value === undefined) throw new UsageError(`${flag} is required (${usage})`)
  return value
}

const identifier = (value: string | undefined, what: string, usage: string): string => {
  if (value === undefined) throw new UsageError(usage)
  if (!Schema.is(Schema.UUID)(value)) throw new UsageError(`${what} must be a uuid, got '${value}'`)
  return value
}

/**
 * Runs one operation on the configured database and prints its response body. A refusal of the
 * request as written (`InvalidRequest`) is a usage error (exit 2); any other (an unknown id) exit 1.
 */
const perform = async <A, I>(
  response: Schema.Schema<A, I>,
  operation: (admin: AccountAdministration) => Effect.Effect<A, PressroomError, Members>
): Promise<void> => {
  const program = Effect.flatMap(AccountAdministration, operation).pipe(
    Effect.flatMap(Schema.encode(response)),
    Effect.provide(Layer.mergeAll(AccountAdministration.Default, Members.Default).pipe(Layer.provide(MigratedDatabaseLive)))
  )
  const exit = await Effect.runPromiseExit(program)
  if (Exit.isSuccess(exit)) {
    process.stdout.write(`${JSON.stringify(exit.value, null, 2)}\n`)
    return
  }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure) && isPressroomError(failure.value)) {
    const { message } = publishingError(failure.value)
    throw failure.value._tag === "InvalidRequest" ? new UsageError(message) : new Error(message)
  }
  throw Cause.squash(exit.cause)
}

/** The first positional argument names the subcommand; the rest are its flags. */
const subcommand = (argv: ReadonlyArray<string>, usage: string, names: ReadonlyArray<string>): [string, Array<string>] => {
  const [name, ...rest] = argv
  if (name === undefined || !names.includes(name)) throw new UsageError(usage)
  return [name, rest]
}

export const runAccounts = async (argv: ReadonlyArray<string>): Promise<void> => {
  const [name, rest] = subcommand(argv, accountsUsage, ["create", "show", "invite"])
  if (name === "invite") {
    const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} })
    if (positionals.length !== 2) throw new UsageError(accountsUsage)
    const accountId = identifier(positionals[0], "accountId", accountsUsage)
    const { email } = decodeFlags(InviteRequest, { email: positionals[1] }, { email: "<email>" })
    return perform(InvitationCreated, () =>
      Effect.flatMap(Effect.orDie(Effect.all([publicBaseUrlConfig, listenConfig])), ([publicBase, { host, port }]) =>
        inviteMember(
          accountId,
          email,
          Option.getOrElse(publicBase, () => `http://${host.includes(":") ? `[${host}]` : host}:${port}`)
        )
      )
    )
  }
  if (name === "show") {
    const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} })
    if (positionals.length !== 1) throw new UsageError(accountsUsage)
    const accountId = identifier(positionals[0], "accountId", accountsUsage)
    return perform(AccountDetail, (admin) => admin.describeAccount(accountId))
  }
  const { values } = parseArgs({
    args: rest,
    options: { name: { type: "string" }, plan: { type: "string" }, "monthly-units": { type: "string" } }
  })
  const request = decodeFlags(
    CreateAccountRequest,
    {
      name: required(values.name, "--name", accountsUsage),
      plan: required(values.plan, "--plan", accountsUsage),
      monthlyUnits: integerFlag(values["monthly-units"])
    },
    { name: "--name", plan: "--plan", monthlyUnits: "--monthly-units" }
  )
  return perform(AccountCreated, (admin) => admin.createAccount(request))
}

export const runKeys = async (argv: ReadonlyArray<string>): Promise<void> => {
  const [name, rest] = subcommand(argv, keysUsage, ["create", "list", "revoke"])
  if (name === "list") {
    const { values } = parseArgs({ args: rest, options: { account: { type: "string" } } })
    const accountId = identifier(required(values.account, "--account", keysUsage), "--account", keysUsage)
    return perform(KeyList, (admin) => admin.listKeys(accountId))
  }
  if (name === "revoke") {
    const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} })
    if (positionals.length !== 1) throw new UsageError(keysUsage)
    const keyId = identifier(positionals[0], "keyId", keysUsage)
    return perform(KeyRevoked, (admin) => admin.revokeKey(keyId))
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      account: { type: "string" },
      name: { type: "string" },
      scope: { type: "string", multiple: true },
      environment: { type: "string" },
      "expires-at": { type: "string" }
    }
  })
  const accountId = identifier(required(values.account, "--account", keysUsage), "--account", keysUsage)
  const request = decodeFlags(
    CreateKeyRequest,
    { name: values.name, scopes: values.scope, environment: values.environment, expiresAt: values["expires-at"] },
    { name: "--name", scopes: "--scope", environment: "--environment", expiresAt: "--expires-at" }
  )
  return perform(KeyCreated, (admin) => admin.createKey(accountId, request))
}

export const runCredits = async (argv: ReadonlyArray<string>): Promise<void> => {
  const [, rest] = subcommand(argv, creditsUsage, ["add"])
  const { values } = parseArgs({ args: rest, options: { account: { type: "string" }, packs: { type: "string" } } })
  const accountId = identifier(required(values.account, "--account", creditsUsage), "--account", creditsUsage)
  const request = decodeFlags(
    AddCreditPacksRequest,
    { packs: integerFlag(required(values.packs, "--packs", creditsUsage)) },
    { packs: "--packs" }
  )
  return perform(CreditPacksAdded, (admin) => admin.addCreditPacks(accountId, request.packs))
}
