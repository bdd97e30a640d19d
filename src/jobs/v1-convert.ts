/** Placeholder: v1 convert lands here. */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PressroomApi } from "../http/api.ts"

export const V1Handlers = HttpApiBuilder.group(PressroomApi, "v1", (handlers) =>
  Effect.succeed(handlers.handle("convert", () => Effect.die("not yet"))))
