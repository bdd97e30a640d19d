/**
 * The `custom_templates` table. Every lookup is by owner: a template of another account, or one
 * its owner deleted, is not found (specification section 5, rule 7). Deletion keeps the row with
 * `deleted_at` set, so the response of a DELETE can show what was deleted.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { type CustomTemplate, type CustomTemplateDefinition, CustomTemplateOptions } from "./custom-template.ts"

interface TemplateRow {
  readonly id: string
  readonly name: string
  readonly base_template_id: string
  readonly options: unknown
  readonly created_at: Date
  readonly deleted_at: Date | null
}

// Saved options were validated on the way in; decoding them again only gives them their type.
const decodeOptions = Schema.decodeUnknownSync(CustomTemplateOptions)

const toTemplate = (row: TemplateRow): CustomTemplate => ({
  id: row.id,
  name: row.name,
  baseTemplateId: row.base_template_id,
  options: decodeOptions(row.options),
  createdAt: row.created_at,
  deletedAt: row.deleted_at
})

export class CustomTemplates extends Effect.Service<CustomTemplates>()("pressroom/CustomTemplates", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql`id, name, base_template_id, options, created_at, deleted_at`
    const one = (rows: ReadonlyArray<TemplateRow>) => Option.map(Option.fromNullable(rows[0]), toTemplate)

    return {
      create: (accountId: string, definition: CustomTemplateDefinition): Effect.Effect<CustomTemplate> =>
        sql<TemplateRow>`
          insert into custom_templates (id, account_id, name, base_template_id, options)
          values (${randomUUID()}, ${accountId}, ${definition.name}, ${definition.baseTemplateId}, ${JSON.stringify(definition.options)}::jsonb)
          returning ${columns}`.pipe(
          Effect.map((rows) => toTemplate(rows[0]!)),
          Effect.orDie
        ),

      /** The owner's templates, newest first. */
      list: (accountId: string): Effect.Effect<ReadonlyArray<CustomTemplate>> =>
        sql<TemplateRow>`
          select ${columns} from custom_templates
          where account_id = ${accountId} and deleted_at is null
          order by created_at desc, id desc`.pipe(
          Effect.map((rows) => rows.map(toTemplate)),
          Effect.orDie
        ),

      /** The owner's template `templateId` (a uuid), unless missing, another owner's, or deleted. */
      findForOwner: (accountId: string, templateId: string): Effect.Effect<Option.Option<CustomTemplate>> =>
        sql<TemplateRow>`
          select ${columns} from custom_templates
          where id = ${templateId} and account_id = ${accountId} and deleted_at is null`.pipe(Effect.map(one), Effect.orDie),

      /** Deletes the owner's template; none when findForOwner would find none. */
      delete: (accountId: string, templateId: string): Effect.Effect<Option.Option<CustomTemplate>> =>
        sql<TemplateRow>`
          update custom_templates set deleted_at = now()
          where id = ${templateId} and account_id = ${accountId} and deleted_at is null
          returning ${columns}`.pipe(Effect.map(one), Effect.orDie)
    } as const
  })
}) {}
