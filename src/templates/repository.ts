/**
 * The `custom_templates` table. Every lookup is by owner: a template of another account, or one
 * its owner deleted, is not found (specification section 5, rule 7). Deletion keeps the row with
 * `deleted_at` set, so the response of a DELETE can show what was deleted. Creation and deletion
 * take the principal and record the member behind it, beside the row and its `deleted_at` (null
 * for a key, contract section 12).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { memberOf, type Principal } from "../accounts/principal.ts"
import { column } from "../shared/rows.ts"
import { CustomTemplate, type CustomTemplateDefinition } from "./custom-template.ts"

/**
 * A row of `custom_templates` decoded into a `CustomTemplate`. Saved options were validated on the
 * way in; decoding them again gives them their type, and maps a retired font family to its
 * replacement.
 */
const TemplateRow = Schema.Struct({
  ...CustomTemplate.fields,
  baseTemplateId: column(CustomTemplate.fields.baseTemplateId, "base_template_id"),
  createdAt: column(CustomTemplate.fields.createdAt, "created_at"),
  deletedAt: column(CustomTemplate.fields.deletedAt, "deleted_at")
})
const decodeRows = Schema.decodeUnknown(Schema.Array(TemplateRow))

export class CustomTemplates extends Effect.Service<CustomTemplates>()("pressroom/CustomTemplates", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql`id, name, base_template_id, options, created_at, deleted_at`
    /** The templates a statement returns. */
    const templates = (statement: Effect.Effect<ReadonlyArray<unknown>, unknown>): Effect.Effect<ReadonlyArray<CustomTemplate>> =>
      statement.pipe(Effect.flatMap(decodeRows), Effect.orDie)
    const one = (statement: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
      Effect.map(templates(statement), (rows) => Option.fromNullable(rows[0]))

    return {
      create: (principal: Principal, definition: CustomTemplateDefinition): Effect.Effect<CustomTemplate> =>
        Effect.map(
          templates(sql`
            insert into custom_templates (id, account_id, name, base_template_id, options, created_by_member_id)
            values (${randomUUID()}, ${principal.accountId}, ${definition.name}, ${definition.baseTemplateId},
                    ${JSON.stringify(definition.options)}::jsonb, ${memberOf(principal)})
            returning ${columns}`),
          (rows) => rows[0]!
        ),

      /** The owner's templates, newest first. */
      list: (accountId: string): Effect.Effect<ReadonlyArray<CustomTemplate>> =>
        templates(sql`
          select ${columns} from custom_templates
          where account_id = ${accountId} and deleted_at is null
          order by created_at desc, id desc`),

      /** The owner's template `templateId` (a uuid), unless missing, another owner's, or deleted. */
      findForOwner: (accountId: string, templateId: string): Effect.Effect<Option.Option<CustomTemplate>> =>
        one(sql`
          select ${columns} from custom_templates
          where id = ${templateId} and account_id = ${accountId} and deleted_at is null`),

      /** Deletes the owner's template; none when findForOwner would find none. */
      delete: (principal: Principal, templateId: string): Effect.Effect<Option.Option<CustomTemplate>> =>
        one(sql`
          update custom_templates set deleted_at = now(), deleted_by_member_id = ${memberOf(principal)}
          where id = ${templateId} and account_id = ${principal.accountId} and deleted_at is null
          returning ${columns}`)
    } as const
  })
}) {}
