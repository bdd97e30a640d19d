/** The plans an account can have (contract section 6): each gives a monthly allowance of units. */
import { Schema } from "effect"

export const Plan = Schema.Literal("free", "monthly", "yearly", "credits", "admin")
export type Plan = typeof Plan.Type
