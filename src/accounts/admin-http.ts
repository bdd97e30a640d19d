/** Placeholder: the admin API handlers (accounts, keys, credit packs) land here. */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PressroomApi } from "../http/api.ts"

export const AdminHandlers = HttpApiBuilder.group(PressroomApi, "admin", (handlers) => Effect.succeed(handlers))
