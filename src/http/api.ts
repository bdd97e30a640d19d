/**
 * The whole HTTP interface, assembled from each context's `api.ts`: one definition for the server,
 * the OpenAPI document, the typed client (src/client/) and tests. A context's handlers (`http.ts`)
 * import it to build their group. Since the client imports it too, it and every `api.ts` import
 * schemas and data only (.dependency-cruiser.cjs, `client-stays-light`).
 */
import { HttpApi, OpenApi } from "@effect/platform"
import { AdminApi } from "../accounts/api.ts"
import { ArtifactLinksApi, ArtifactsApi } from "../artifacts/api.ts"
import { V1Api } from "../convert/api.ts"
import { DocumentsApi } from "../documents/api.ts"
import { JobsApi } from "../jobs/api.ts"
import { MembersAdminApi } from "../members/api.ts"
import { OpsApi } from "../ops/api.ts"
import { TemplatesApi } from "../templates/api.ts"
import { WebhooksApi } from "../webhooks/api.ts"
import { describeHeaders } from "./openapi-headers.ts"

export class PressroomApi extends HttpApi.make("pressroom")
  .add(V1Api)
  .add(DocumentsApi)
  .add(JobsApi)
  .add(ArtifactsApi)
  .add(ArtifactLinksApi)
  .add(TemplatesApi)
  .add(WebhooksApi)
  .add(AdminApi)
  .add(MembersAdminApi)
  .add(OpsApi)
  .annotate(OpenApi.Title, "Pressroom")
  .annotate(OpenApi.Version, "2.0.0")
  .annotate(OpenApi.Description, "Markdown to reproducible PDF through named templates.")
  .annotate(OpenApi.Transform, describeHeaders) {}
