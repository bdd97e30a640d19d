/** A member: a person who signs in to the dashboard on behalf of one account (contract section 12). */
import { Schema } from "effect"
import { Timestamp } from "../shared/timestamp.ts"

export class Invitation extends Schema.Class<Invitation>("Invitation")({
  id: Schema.UUID,
  email: Schema.String,
  expiresAt: Timestamp
}) {}

/** An email as members are known by: trimmed and lower-cased; undefined when it is not one. */
export const normalEmail = (text: string): string | undefined => {
  const email = text.trim().toLowerCase()
  return email.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(email) ? email : undefined
}
