// TEMPORARY STUB (not committed): replaced by the h-keys helper's module.
import { Effect } from "effect"
import { InvalidRequest } from "../shared/errors.ts"
export const encodeCursor = (_accountId: string, position: { createdAt: Date; id: string }) =>
  Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString("base64url")
export const decodeCursor = (_accountId: string, text: string) =>
  Effect.try({
    try: () => {
      const [createdAt, id] = JSON.parse(Buffer.from(text, "base64url").toString()) as [string, string]
      return { createdAt: new Date(createdAt), id }
    },
    catch: () => InvalidRequest.malformed("cursor: not a cursor this service issued")
  })
