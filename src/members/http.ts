/** The admin API's invitation handler (contract section 12). */
import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { ArtifactLinks } from "../artifacts/links.ts"
import { PressroomApi } from "../http/api.ts"
import { inviteMember } from "./invitations.ts"
import { Members } from "./members.ts"

/** The URL carries the invitation's only token: no cache on the way may keep it. */
const noStore = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "cache-control", "no-store"))
)

export const MembersAdminHandlers = HttpApiBuilder.group(PressroomApi, "membersAdmin", (handlers) =>
  Effect.map(ArtifactLinks, (links) =>
    handlers.handle("invite", ({ path, payload }) =>
      Effect.flatMap(links.href(""), (base) => inviteMember(path.accountId, payload.email, base)).pipe(Effect.zipLeft(noStore))
    )
  )
).pipe(Layer.provide(Members.Default))
