/** An API key as the admin API shows it (contract section 9). */
import { Schema } from "effect"
import { Timestamp } from "../shared/timestamp.ts"
import { ApiScope, KeyEnvironment } from "./principal.ts"

/** A key as operators see it: everything but the secret. */
export class ApiKey extends Schema.Class<ApiKey>("ApiKey")({
  id: Schema.UUID,
  name: Schema.NullOr(Schema.String).annotations({ description: "what the key is for, as its creator named it; null when unnamed" }),
  prefix: Schema.String.annotations({ description: "the key's first characters, to recognise it by" }),
  scopes: Schema.Array(ApiScope),
  environment: KeyEnvironment,
  expiresAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp,
  lastUsedAt: Schema.NullOr(Timestamp).annotations({
    description: "when the key last authenticated a request, to the minute (written at most once a minute)"
  }),
  revokedAt: Schema.NullOr(Timestamp)
}) {}
