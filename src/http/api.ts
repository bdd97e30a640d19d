/** The whole HTTP interface: one definition for the server, the OpenAPI document and tests. */
import { HttpApi, OpenApi } from "@effect/platform"
import { AdminApi } from "./groups/admin.ts"
import { OpsApi } from "./groups/ops.ts"
import { describeHeaders } from "./openapi-headers.ts"
import { TemplatesApi } from "./groups/templates.ts"
import { V1Api } from "./groups/v1.ts"

export class PressroomApi extends HttpApi.make("pressroom")
  .add(V1Api)
  .add(TemplatesApi)
  .add(AdminApi)
  .add(OpsApi)
  .annotate(OpenApi.Title, "Pressroom")
  .annotate(OpenApi.Version, "2.0.0")
  .annotate(OpenApi.Description, "Markdown to reproducible PDF through named templates.")
  .annotate(OpenApi.Transform, describeHeaders)
{}

export const openApiDocument = OpenApi.fromApi(PressroomApi)
