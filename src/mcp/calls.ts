/**
 * One tool call, as REST runs its operation: arguments decoded strictly (wrong, unknown or
 * oversized ones are `invalid_request`), admitted (scope, then the owner's rate class), executed
 * at most once per `idempotencyKey` when the tool persists, and answered as `structuredContent`
 * matching the tool's output schema, or as an error result holding `{ error: PublishingError }`
 * (contract section 13).
 */
import { Cause, Effect, ParseResult, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { CurrentPrincipal, type Principal } from "../accounts/principal.ts"
import { Admission } from "../admission/admission.ts"
import { Idempotency } from "../idempotency/idempotency.ts"
import { jsonOutcome } from "../idempotency/saved-outcome.ts"
import { errorBody } from "../shared/error-responses.ts"
import { causeIsDatabaseUnreachable } from "../db/unreachable.ts"
import { databaseUnavailable, InternalError, InvalidRequest, isPressroomError, type PressroomError } from "../shared/errors.ts"
import { jcsSha256 } from "../shared/hash.ts"
import { argumentsSchema, type Tool } from "./tool.ts"

export interface ToolResult {
  readonly [key: string]: unknown
  readonly content: Array<{ type: "text"; text: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
}

const success = (structured: Record<string, unknown>): ToolResult => ({
  content: [{ type: "text", text: JSON.stringify(structured) }],
  structuredContent: structured
})

/** The error result: the v1 error body (`{ error }`, without `contractVersion`), its correlation id in the log beside the cause. */
export const errorResult = (error: PressroomError, correlationId: string = randomUUID()): ToolResult => ({
  isError: true,
  content: [{ type: "text", text: JSON.stringify(errorBody(error, correlationId, "v1")) }]
})

const invalidArguments = (error: ParseResult.ParseError) =>
  new InvalidRequest({
    status: 400,
    message: `arguments: ${ParseResult.TreeFormatter.formatErrorSync(error).split("\n").slice(0, 4).join(" ").slice(0, 500)}`
  })

/** Calls `tool` for `principal` with the client's raw arguments. */
export const callTool = <R>(tool: Tool<unknown, unknown, unknown, R>, principal: Principal, raw: unknown) =>
  Effect.gen(function* () {
    const decoded = yield* Schema.decodeUnknown(argumentsSchema(tool) as Schema.Schema<Record<string, unknown>, unknown>, {
      onExcessProperty: "error"
    })(raw ?? {}).pipe(Effect.mapError(invalidArguments))
    const { idempotencyKey, ...args } = decoded as { idempotencyKey?: string }
    const { idempotencyKey: _, ...rawArgs } = (raw ?? {}) as Record<string, unknown>
    // Contract section 13: the canonical hash of the call, also the requestSha256 of the job it makes.
    const requestSha256 = jcsSha256({ operation: tool.name, arguments: rawArgs })
    yield* (yield* Admission).admit(tool.scopes, tool.rateClass)
    const body = Effect.flatMap(tool.run(principal, args, requestSha256), (output) =>
      Effect.orDie(Schema.encode(tool.output as Schema.Schema<unknown, Record<string, unknown>>)(output))
    ) as Effect.Effect<Record<string, unknown>, PressroomError, R>
    return success(
      idempotencyKey === undefined
        ? yield* body
        : yield* (yield* Idempotency).once(
            { operation: tool.name, key: idempotencyKey, requestSha256 },
            jsonOutcome<Record<string, unknown>>(),
            body
          )
    )
  }).pipe(
    Effect.provideService(CurrentPrincipal, principal),
    Effect.catchAll((error) => Effect.succeed(errorResult(error))),
    Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
      const defect = Cause.squash(cause)
      if (isPressroomError(defect)) return Effect.succeed(errorResult(defect))
      // As REST answers it (http/error-envelope.ts): transient, retryable, nothing of the cause.
      if (causeIsDatabaseUnreachable(cause)) {
        return Effect.as(
          Effect.logWarning("an MCP tool call failed: the database is unreachable", cause),
          errorResult(databaseUnavailable())
        )
      }
      // The whole cause in the log (a defect logged as a message alone is written as {}), under
      // the correlation id the error result quotes.
      const correlationId = randomUUID()
      return Effect.as(
        Effect.logError("an MCP tool call failed", cause).pipe(Effect.annotateLogs({ correlationId, tool: tool.name })),
        errorResult(new InternalError(), correlationId)
      )
    })
  )
