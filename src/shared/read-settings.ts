/** Settings read from the environment by a command, a refusal as the one line it prints. */
import { type Config, type ConfigError, Effect, Either } from "effect"

/** Each problem of a refusal, once: `Config.all` reports every bad setting, and a setting read twice twice. */
const problems = (error: ConfigError.ConfigError): ReadonlyArray<string> => {
  switch (error._op) {
    case "And":
    case "Or":
      return [...problems(error.left), ...problems(error.right)]
    case "InvalidData":
    case "MissingData": {
      // A validation's message names its setting; Effect's own ("Expected an integer value but received x") does not.
      const name = error.path.join(".")
      return [name === "" || error.message.includes(name) ? error.message : `${name}: ${error.message}`]
    }
    default:
      return [error.message]
  }
}

/** A refusal as one line: its problems, each once, joined. */
const describeConfigError = (error: ConfigError.ConfigError): string => [...new Set(problems(error))].join("; ")

/**
 * `config` read from the environment now, or an Error whose message is the refusal's one line
 * (src/cli/main.ts prints it on stderr and exits 1).
 */
export const readSettings = <A>(config: Config.Config<A>): A =>
  Either.getOrThrowWith(Effect.runSync(Effect.either(config)), (error) => new Error(describeConfigError(error)))
