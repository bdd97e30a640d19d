/**
 * The cost of a password's hash (src/members/password.ts): scrypt's N as a power of two. OWASP's
 * 2^17 by default; lower only where the hashes protect nothing and their CPU is the cost, as in a
 * test suite, which hashes dozens of throwaway passwords (0.4 CPU-seconds each at 2^17). A hash
 * keeps the cost it was made with, so a changed setting still verifies every stored one.
 */
import { Config } from "effect"

const MIN_PASSWORD_HASH_COST = 10
const MAX_PASSWORD_HASH_COST = 20

export const passwordHashCost = Config.integer("PRESSROOM_PASSWORD_HASH_COST").pipe(
  Config.withDefault(17),
  Config.validate({
    message: `PRESSROOM_PASSWORD_HASH_COST must be an integer from ${MIN_PASSWORD_HASH_COST} to ${MAX_PASSWORD_HASH_COST} (scrypt's N as a power of two)`,
    validation: (cost) => cost >= MIN_PASSWORD_HASH_COST && cost <= MAX_PASSWORD_HASH_COST
  })
)
