/**
 * The tools of contract section 13. Each calls the operation its REST endpoint calls (documents,
 * jobs and artifacts operations.ts); `convert_markdown` is a one-call conversion on channel
 * `mcp_v1`, the others make jobs of channel `mcp_v2`, awaited up to the synchronous threshold.
 */
import { Duration, Effect, Option, Schema } from "effect"
import type { CurrentPrincipal } from "../accounts/principal.ts"
import { ArtifactLinkResponse } from "../artifacts/api.ts"
import { ArtifactSummary } from "../artifacts/artifact.ts"
import { createArtifactLink } from "../artifacts/operations.ts"
import { ConvertRequest } from "../convert/api.ts"
import {
  CreateDocumentRequest,
  CreateRevisionRequest,
  DocumentDetailResponse,
  DocumentListResponse,
  DocumentResponse,
  RenderRequest,
  RevisionCreated
} from "../documents/api.ts"
import { createDocument, createRevision, getDocument, listDocuments, renderRevision } from "../documents/operations.ts"
import { JobResponse } from "../jobs/api-schemas.ts"
import { JobResource } from "../jobs/job.ts"
import { JobResponses } from "../jobs/job-response.ts"
import { Jobs } from "../jobs/jobs.ts"
import { cancelJob } from "../jobs/operations.ts"
import { toRenderSpec } from "../jobs/render-spec.ts"
import { catalog, TEMPLATE_IDS, V1_TEMPLATE_IDS } from "../render/catalog.ts"
import { DEFAULT_PAGE, ListParams, MAX_PAGE } from "../shared/pagination.ts"
import { oneOf, strict } from "../shared/request-values.ts"
import { type Tool, tool } from "./tool.ts"

/** convert_markdown answers within this (an SDK client gives up at 60 s); a longer render is followed with get_job. */
export const CONVERT_WAIT = Duration.seconds(50)

const DocumentId = Schema.Struct({ documentId: Schema.UUID })
const JobId = Schema.Struct({ jobId: Schema.UUID })

const ListTemplatesResult = Schema.Struct({
  catalogVersion: Schema.String,
  templates: Schema.Array(
    Schema.Struct({
      templateId: Schema.String,
      family: Schema.String,
      description: Schema.String,
      v1: Schema.Boolean.annotations({ description: "whether the v1 REST convert offers it" })
    })
  )
})

const { customTemplateId: _, templateId: __, ...convertFields } = ConvertRequest.fields
const ConvertMarkdownArguments = Schema.Struct({
  ...convertFields,
  templateId: Schema.optional(oneOf(TEMPLATE_IDS, "default clean; see list_templates"))
}).annotations(strict)

const ConvertMarkdownResult = Schema.Struct({
  job: JobResource,
  artifact: Schema.NullOr(ArtifactSummary),
  link: Schema.NullOr(ArtifactLinkResponse)
})

const ListDocumentsArguments = Schema.Struct({
  limit: Schema.optional(Schema.Int.pipe(Schema.between(1, MAX_PAGE))).annotations({
    description: `1 to ${MAX_PAGE}, default ${DEFAULT_PAGE}`
  }),
  cursor: ListParams.fields.cursor
})

const renderNote =
  "Answers within the synchronous threshold (2 s by default) with the job: status succeeded with its artifact, or queued/running to follow with get_job."

/**
 * The tools, the document operations awaiting their jobs up to `threshold` and convert_markdown up
 * to `convertWait` (CONVERT_WAIT; a test shortens it to see the job handed back).
 */
export const tools = (threshold: Duration.Duration, convertWait: Duration.Duration = CONVERT_WAIT) => [
  tool({
    name: "list_templates",
    description:
      "List Pressroom's built-in Typst templates (résumés, letters, reports, academic papers, books…): their templateId, family and a description. Pick a templateId here for convert_markdown or create_document; read the resource pressroom://templates/{templateId} for the front matter keys a template reads. Uses no units.",
    input: Schema.Struct({}),
    output: ListTemplatesResult,
    scopes: "documents.read",
    rateClass: "read",
    persists: false,
    run: () =>
      Effect.succeed({
        catalogVersion: catalog.catalogVersion,
        templates: catalog.templates.map((template) => ({
          templateId: template.id,
          family: template.family,
          description: template.description,
          v1: (V1_TEMPLATE_IDS as ReadonlyArray<string>).includes(template.id)
        }))
      })
  }),
  tool({
    name: "convert_markdown",
    description:
      "Typeset Markdown into a final PDF in one call with a template (default clean; see list_templates and the guide pressroom://guides/markdown). Uses one unit of the account's publication allowance. Answers within 50 s with the job, its artifact and a download link valid for at most 5 minutes; when the render takes longer, artifact and link are null: follow the job with get_job, then create_download_link. Pass an idempotencyKey to retry safely.",
    input: ConvertMarkdownArguments,
    output: ConvertMarkdownResult,
    scopes: "documents.render",
    rateClass: "convert",
    persists: true,
    run: (principal, args, requestSha256) =>
      Effect.gen(function* () {
        const spec = yield* toRenderSpec({
          markdown: args.markdown,
          templateId: args.templateId ?? "clean",
          locale: args.locale ?? "en",
          options: args.options ?? {},
          filename: args.filename ?? "document.pdf"
        })
        // A caller that stops waiting leaves the job to run: it stays readable with get_job.
        const job = yield* (yield* Jobs).admitAndAwait(
          Effect.succeed({ principal, purpose: "final", channel: "mcp_v1", spec, requestSha256 } as const),
          convertWait,
          () => Effect.void
        )
        const shown = yield* (yield* JobResponses).body(job)
        const link = shown.artifact === null ? null : yield* createArtifactLink(principal, shown.artifact.id)
        return { job: shown.job, artifact: link === null ? null : shown.artifact, link }
      })
  }),
  tool({
    name: "create_document",
    description:
      "Create a document with its first revision: the Markdown, a templateId and a locale (spec). A document keeps revisions, so you can preview (preview_revision, free) and publish (publish_revision, one unit) each. Returns the document and its revision; call preview_revision next. Pass an idempotencyKey to retry safely.",
    input: CreateDocumentRequest,
    output: DocumentResponse,
    scopes: ["documents.render", "documents.preview"],
    rateClass: "write",
    persists: true,
    run: (principal, args) => createDocument(principal, args)
  }),
  tool({
    name: "create_revision",
    description:
      "Add a revision (new Markdown and spec) to an active document; parentRevisionId names the revision it edits (or null). Returns the revision; preview or publish it next. Uses no units.",
    input: Schema.Struct({ ...DocumentId.fields, ...CreateRevisionRequest.fields }),
    output: RevisionCreated,
    scopes: ["documents.render", "documents.preview"],
    rateClass: "write",
    persists: true,
    run: (principal, { documentId, ...request }) => createRevision(principal, documentId, request)
  }),
  tool({
    name: "get_document",
    description:
      "Get one of the account's documents by documentId: its status (active, deleting, deleted), retention and latest revision. Uses no units.",
    input: DocumentId,
    output: DocumentDetailResponse,
    scopes: "documents.read",
    rateClass: "read",
    persists: false,
    run: (principal, args) => getDocument(principal, args.documentId)
  }),
  tool({
    name: "list_documents",
    description: "List the account's documents, newest first; pass pagination.nextCursor as cursor for the next page.",
    input: ListDocumentsArguments,
    output: DocumentListResponse,
    scopes: "documents.read",
    rateClass: "read",
    persists: false,
    run: (principal, args) => listDocuments(principal, args)
  }),
  tool({
    name: "preview_revision",
    description: `Render a revision as a preview PDF (watermarked, kept 15 minutes). Uses no units. ${renderNote} Then create_download_link with the artifact's artifactId.`,
    input: Schema.Struct({ ...DocumentId.fields, ...RenderRequest.fields }),
    output: JobResponse,
    scopes: "documents.preview",
    rateClass: "preview",
    persists: true,
    run: (principal, { documentId, ...request }, requestSha256) =>
      Effect.flatMap(renderRevision(principal, documentId, request, "preview", "mcp_v2", requestSha256, threshold), (job) =>
        Effect.flatMap(JobResponses, (responses) => responses.body(job))
      )
  }),
  tool({
    name: "publish_revision",
    description: `Render a revision as the final PDF. Uses one unit of the account's publication allowance. ${renderNote} Then create_download_link with the artifact's artifactId.`,
    input: Schema.Struct({ ...DocumentId.fields, ...RenderRequest.fields }),
    output: JobResponse,
    scopes: "documents.render",
    rateClass: "publish",
    persists: true,
    run: (principal, { documentId, ...request }, requestSha256) =>
      Effect.flatMap(renderRevision(principal, documentId, request, "final", "mcp_v2", requestSha256, threshold), (job) =>
        Effect.flatMap(JobResponses, (responses) => responses.body(job))
      )
  }),
  tool({
    name: "get_job",
    description:
      "Get a job (a preview, publication or conversion): its status (queued, running, succeeded, failed, cancelled), its error, and its artifact once it succeeded.",
    input: JobId,
    output: JobResponse,
    scopes: "documents.read",
    rateClass: "read",
    persists: false,
    run: (principal, args) =>
      Effect.gen(function* () {
        const job = yield* (yield* Jobs).find(principal, args.jobId)
        return yield* (yield* JobResponses).body(job)
      })
  }),
  tool({
    name: "cancel_job",
    description:
      "Cancel a queued or running job; a cancelled publication's unit is released. Fails with invalid_state_transition once the job has ended.",
    input: JobId,
    output: JobResponse,
    scopes: ["documents.render", "documents.preview"],
    rateClass: "write",
    persists: true,
    run: (principal, args) =>
      Effect.flatMap(cancelJob(principal, args.jobId, threshold), (job) => Effect.flatMap(JobResponses, (responses) => responses.body(job)))
  }),
  tool({
    name: "create_download_link",
    description:
      "Create a link to download an artifact's PDF without the API key, valid for at most 5 minutes: give it to the user, or fetch it. Uses no units.",
    input: Schema.Struct({ artifactId: Schema.UUID }),
    output: ArtifactLinkResponse,
    scopes: "documents.read",
    rateClass: "read",
    persists: false,
    run: (principal, args) => createArtifactLink(principal, args.artifactId)
  })
]

/** What the tools' bodies need: the services of the REST handlers they stand for (the principal is the call's own). */
export type ToolServices = Exclude<Effect.Effect.Context<ReturnType<ReturnType<typeof tools>[number]["run"]>>, CurrentPrincipal>

export const findTool = (list: ReadonlyArray<Tool>, name: string) => Option.fromNullable(list.find((tool) => tool.name === name))
