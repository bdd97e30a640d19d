/** Placeholder: the custom template handlers land here. */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PressroomApi } from "../http/api.ts"

export const TemplatesHandlers = HttpApiBuilder.group(PressroomApi, "templates", (handlers) => Effect.succeed(handlers))
