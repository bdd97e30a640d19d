/** Why a formula cannot be converted: thrown anywhere in the conversion, caught once at its top. */
export class Refusal extends Error {}

export const refuse = (reason: string): never => {
  throw new Refusal(reason)
}
