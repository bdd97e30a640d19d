/** The admin API's handlers (contract section 9): each one a call of `AccountAdministration`. */
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { PressroomApi } from "../http/api.ts"
import { AccountAdministration } from "./administration.ts"

export const AdminHandlers = HttpApiBuilder.group(PressroomApi, "admin", (handlers) =>
  Effect.map(AccountAdministration, (admin) =>
    handlers
      .handle("createAccount", ({ payload }) => admin.createAccount(payload))
      .handle("getAccount", ({ path }) => admin.describeAccount(path.accountId))
      .handle("createKey", ({ path, payload }) => admin.createKey(path.accountId, payload))
      .handle("revokeKey", ({ path }) => admin.revokeKey(path.keyId))
      .handle("addCreditPacks", ({ path, payload }) => admin.addCreditPacks(path.accountId, payload.packs))
  )
).pipe(Layer.provide(AccountAdministration.Default))
