/** The admin API's handlers (contract section 9): each one a call of `AccountAdministration`. */
import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { PressroomApi } from "../http/api.ts"
import { AccountAdministration } from "./administration.ts"

/** A new key's secret is shown once: no cache on the way may keep the answer that carries it. */
const noStore = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "cache-control", "no-store"))
)

export const AdminHandlers = HttpApiBuilder.group(PressroomApi, "admin", (handlers) =>
  Effect.map(AccountAdministration, (admin) =>
    handlers
      .handle("createAccount", ({ payload }) => admin.createAccount(payload))
      .handle("getAccount", ({ path }) => admin.describeAccount(path.accountId))
      .handle("createKey", ({ path, payload }) => Effect.zipLeft(admin.createKey(path.accountId, payload), noStore))
      .handle("listKeys", ({ path }) => admin.listKeys(path.accountId))
      .handle("revokeKey", ({ path }) => admin.revokeKey(path.keyId))
      .handle("addCreditPacks", ({ path, payload }) => admin.addCreditPacks(path.accountId, payload.packs))
  )
).pipe(Layer.provide(AccountAdministration.Default))
