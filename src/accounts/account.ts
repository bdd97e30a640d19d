/** An account: the owner of API keys and of everything those keys create (contract section 2). */
import { Schema } from "effect"
import { Plan } from "../entitlements/plan.ts"
import { Timestamp } from "../shared/timestamp.ts"

export class Account extends Schema.Class<Account>("Account")({
  id: Schema.UUID,
  name: Schema.String,
  plan: Plan,
  /** A custom monthly allowance; null means the plan's (contract section 6). */
  monthlyUnits: Schema.NullOr(Schema.Int),
  createdAt: Timestamp
}) {}
