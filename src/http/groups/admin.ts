/** The operators' admin API (contract section 9), behind the admin token. */
import { HttpApiGroup, OpenApi } from "@effect/platform"
import { AdminAuthentication } from "../security.ts"

export class AdminApi extends HttpApiGroup.make("admin")
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin")
{}
