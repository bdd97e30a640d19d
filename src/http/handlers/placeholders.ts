import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PressroomApi } from "../api.ts"

export const AdminHandlers = HttpApiBuilder.group(PressroomApi, "admin", (handlers) => Effect.succeed(handlers))
export const TemplatesHandlers = HttpApiBuilder.group(PressroomApi, "templates", (handlers) => Effect.succeed(handlers))
export const V1Handlers = HttpApiBuilder.group(PressroomApi, "v1", (handlers) =>
  Effect.succeed(handlers.handle("convert", () => Effect.die("not yet"))))
