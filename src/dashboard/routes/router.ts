/**
 * The dashboard (contract section 12): its pages and their endpoints, mounted at `/app` on the
 * API's own router by the same process, unless `PRESSROOM_DASHBOARD=off`. A route that needs the
 * member is wrapped in `signedIn`; every POST reads its form through `memberForm` or
 * `visitorForm`, which check the CSRF token and the Origin. Failures become pages here (a 404 for
 * another account's key, 403 for a refused form), never the API's JSON envelope.
 */
import { HttpApiBuilder, HttpRouter, type HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Layer, Option } from "effect"
import { Accounts } from "../../accounts/accounts.ts"
import { AccountAdministration } from "../../accounts/administration.ts"
import type { Ledger } from "../../entitlements/ledger.ts"
import { Members } from "../../members/members.ts"
import { Sessions } from "../../members/sessions.ts"
import { assetResponse, loadAssets } from "../assets.ts"
import { dashboardConfig, DashboardSettings } from "../config.ts"
import { html } from "../html.ts"
import { acceptInvitation, showInvitation } from "../pages/invitation.ts"
import { confirmRevoke, createKey, listKeys, revokeKey } from "../pages/keys.ts"
import { showOverview } from "../pages/overview.ts"
import { showSignIn, signIn, signOut } from "../pages/sign-in.ts"
import { htmlResponse, redirect } from "../responses.ts"
import { currentSession, signedIn } from "../session.ts"
import { statusPage } from "../status-page.ts"
import { type WorkRequirements, workRoutes } from "./work-routes.ts"

/** The services the pages call, built for the dashboard (the platform's own, like the ledger, come from below). */
export const DashboardServices = Layer.mergeAll(Sessions.Default, Members.Default, Accounts.Default, AccountAdministration.Default)

/** Everything the pages use beyond the request: the services above and the platform's. */
export type DashboardRequirements = Layer.Layer.Success<typeof DashboardServices> | Ledger | WorkRequirements

/** What a failed request shows: the page for its status, never its cause (which goes to the log). */
const failurePage = (cause: Cause.Cause<unknown>): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value as { readonly _tag?: string; readonly status?: number }
    switch (error._tag) {
      case "NotFound":
      case "RouteNotFound":
        return Effect.succeed(htmlResponse(statusPage(404, "There is no such page in your account."), 404))
      case "CsrfRefused":
        return Effect.succeed(
          htmlResponse(
            statusPage(
              403,
              html`The form was refused: it did not come from this dashboard, or it is too old. Go back, reload the page and try again.`
            ),
            403
          )
        )
      case "FormRefused":
        return Effect.succeed(htmlResponse(statusPage(error.status!, "The form could not be read."), error.status!))
    }
  }
  return Effect.as(Effect.logError("dashboard request failed", cause), htmlResponse(statusPage(500, "Please try again in a moment."), 500))
}

const assets = loadAssets()

const serveAsset = Effect.map(HttpRouter.params, (params) => {
  const asset = assets.get(params.name ?? "")
  return asset ? assetResponse(asset) : htmlResponse(statusPage(404, "There is no such file."), 404)
})

const home = Effect.map(currentSession, (session) => redirect(Option.isSome(session) ? "/app/overview" : "/app/sign-in"))

/** The routes, relative to `/app`. */
export const dashboardRouter = HttpRouter.empty.pipe(
  HttpRouter.get("/", home),
  HttpRouter.get("/assets/:name", serveAsset),
  HttpRouter.get("/sign-in", showSignIn),
  HttpRouter.post("/sign-in", signIn),
  HttpRouter.post("/sign-out", signedIn(signOut)),
  HttpRouter.get("/invitations/:token", showInvitation),
  HttpRouter.post("/invitations/:token", acceptInvitation),
  HttpRouter.get("/overview", signedIn(showOverview)),
  HttpRouter.get("/keys", signedIn(listKeys)),
  HttpRouter.post("/keys", signedIn(createKey)),
  HttpRouter.get("/keys/:keyId/revoke", signedIn(confirmRevoke)),
  HttpRouter.post("/keys/:keyId/revoke", signedIn(revokeKey)),
  workRoutes
)

/** The dashboard mounted at `/app` of the API's router, or nothing when it is off. */
export const DashboardLive = Layer.unwrapEffect(
  Effect.map(dashboardConfig, (config) =>
    config.enabled
      ? HttpApiBuilder.Router.use((router) =>
          Effect.gen(function* () {
            const context = yield* Effect.context<DashboardRequirements>()
            const app = dashboardRouter.pipe(
              Effect.catchAllCause(failurePage),
              Effect.provide(context),
              Effect.provideService(DashboardSettings, config)
            )
            yield* router.mountApp("/app", app)
          })
        ).pipe(Layer.provide(DashboardServices))
      : Layer.empty
  )
)
