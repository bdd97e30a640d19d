/** Custom templates (contract section 8): owner-scoped saved overrides on a built-in template. */
import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../security.ts"

export class TemplatesApi extends HttpApiGroup.make("templates")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Custom templates")
{}
