/**
 * The routes of the web channel's pages (contract section 12), relative to `/app`: documents and
 * the editor, an artifact's preview and download, webhooks, templates and the gallery's images.
 * Every one but the gallery's (the package's own pictures) needs the signed-in member. A path id
 * that is not a UUID names nothing: 404, as another account's would.
 */
import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import type { Admission } from "../../admission/admission.ts"
import type { ArtifactRepository } from "../../artifacts/repository.ts"
import type { ArtifactStore } from "../../artifacts/store.ts"
import type { DocumentHistory } from "../../documents/history.ts"
import type { Documents } from "../../documents/documents.ts"
import type { Jobs } from "../../jobs/jobs.ts"
import type { Cursors } from "../../shared/cursor.ts"
import { NotFound } from "../../shared/errors.ts"
import type { CustomTemplates } from "../../templates/repository.ts"
import type { WebhookSubscriptions } from "../../webhooks/subscriptions.ts"
import { assetResponse } from "../assets.ts"
import { loadGallery } from "../gallery.ts"
import { downloadArtifact, previewArtifact } from "../pages/artifacts.ts"
import { showDocument } from "../pages/document.ts"
import { showDocuments } from "../pages/documents.ts"
import { saveDraft, showEditor, showNewDocument } from "../pages/editor.ts"
import { createCustomTemplate, deleteCustomTemplate, showTemplates } from "../pages/templates.ts"
import { createWebhook, disableWebhook, redeliverWebhook, rotateWebhook, showDeliveries, showWebhooks } from "../pages/webhooks.ts"
import { signedIn } from "../session.ts"

/** The platform's services these pages call. */
export type WorkRequirements =
  | Admission
  | ArtifactRepository
  | ArtifactStore
  | Cursors
  | CustomTemplates
  | DocumentHistory
  | Documents
  | Jobs
  | WebhookSubscriptions

/** The path parameter `name` as a UUID; anything else names nothing. */
const idParam = (name: string) =>
  Effect.flatMap(HttpRouter.params, (params) =>
    Schema.is(Schema.UUID)(params[name]) ? Effect.succeed(params[name]) : Effect.fail(new NotFound({ resource: "page" }))
  )

/** `page` of the member, given the path's ids. */
const withIds =
  <const N extends ReadonlyArray<string>>(...names: N) =>
  <A, E, R>(page: (...ids: { [K in keyof N]: string }) => Effect.Effect<A, E, R>) =>
    Effect.flatMap(Effect.all(names.map(idParam)), (ids) => page(...(ids as { [K in keyof N]: string })))

const gallery = loadGallery()

const serveGalleryImage = Effect.flatMap(HttpRouter.params, (params) => {
  const png = gallery.get(/^(.+)\.png$/.exec(params.file ?? "")?.[1] ?? "")
  return png ? Effect.succeed(assetResponse({ bytes: png, contentType: "image/png" })) : Effect.fail(new NotFound({ resource: "image" }))
})

export const workRoutes = <E, R>(router: HttpRouter.HttpRouter<E, R>) =>
  router.pipe(
    HttpRouter.get("/gallery/:file", serveGalleryImage),
    HttpRouter.get("/documents", signedIn(showDocuments)),
    HttpRouter.get("/documents/new", signedIn(showNewDocument)),
    HttpRouter.post("/documents", signedIn(saveDraft(null))),
    HttpRouter.get("/documents/:documentId", signedIn(withIds("documentId")(showDocument))),
    HttpRouter.get("/documents/:documentId/edit", signedIn(withIds("documentId")(showEditor))),
    HttpRouter.post("/documents/:documentId/edit", signedIn(withIds("documentId")(saveDraft))),
    HttpRouter.get("/artifacts/:artifactId/preview", signedIn(withIds("artifactId")(previewArtifact))),
    HttpRouter.get("/artifacts/:artifactId/download", signedIn(withIds("artifactId")(downloadArtifact))),
    HttpRouter.get("/webhooks", signedIn(showWebhooks)),
    HttpRouter.post("/webhooks", signedIn(createWebhook)),
    HttpRouter.get("/webhooks/:subscriptionId", signedIn(withIds("subscriptionId")(showDeliveries))),
    HttpRouter.post("/webhooks/:subscriptionId/rotate", signedIn(withIds("subscriptionId")(rotateWebhook))),
    HttpRouter.post("/webhooks/:subscriptionId/disable", signedIn(withIds("subscriptionId")(disableWebhook))),
    HttpRouter.post(
      "/webhooks/:subscriptionId/deliveries/:deliveryId/redeliver",
      signedIn(withIds("subscriptionId", "deliveryId")(redeliverWebhook))
    ),
    HttpRouter.get("/templates", signedIn(showTemplates)),
    HttpRouter.post("/templates/custom", signedIn(createCustomTemplate)),
    HttpRouter.post("/templates/custom/:templateId/delete", signedIn(withIds("templateId")(deleteCustomTemplate)))
  )
