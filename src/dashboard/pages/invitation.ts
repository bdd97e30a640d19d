/**
 * The invitation page (contract section 12): the person chooses a password (at least 12
 * characters) and is signed in. An unknown, used, replaced or expired invitation gets one answer.
 */
import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { Members } from "../../members/members.ts"
import { MIN_PASSWORD_LENGTH } from "../../members/password.ts"
import { csrfField } from "../csrf.ts"
import { visitorForm, visitorToken } from "../forms.ts"
import { html } from "../html.ts"
import { document } from "../layout.ts"
import { htmlResponse } from "../responses.ts"
import { statusPage } from "../status-page.ts"
import { startSession } from "./sign-in.ts"

const refused = () =>
  htmlResponse(
    statusPage(410, "This invitation cannot be used: it was used already, replaced, or is more than 72 hours old. Ask for a new one."),
    410
  )

const invitationPage = (invitation: string, token: string, error?: string) =>
  document({
    title: "Choose a password",
    main: html`<div class="narrow card">
      <h1>Choose a password</h1>
      <p>You have been invited to an account on Pressroom. Choose a password to sign in with.</p>
      ${error ? html`<p class="error" role="alert">${error}</p>` : ""}
      <form method="post" action="/app/invitations/${invitation}">
        ${csrfField(token)}
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"
          aria-describedby="password-hint">
        <p class="hint" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters. A few unrelated words make a good one.</p>
        <div class="actions"><button type="submit" class="button">Set password and sign in</button></div>
      </form>
    </div>`
  })

const invitationToken = Effect.map(HttpRouter.params, (params) => params.token ?? "")

export const showInvitation = Effect.gen(function* () {
  const invitation = yield* invitationToken
  if (!(yield* (yield* Members).invitationIsOpen(invitation))) return refused()
  const { token, setCookie } = yield* visitorToken
  return htmlResponse(invitationPage(invitation, token), 200, setCookie)
})

export const acceptInvitation = Effect.gen(function* () {
  const invitation = yield* invitationToken
  const form = yield* visitorForm
  return yield* (yield* Members).acceptInvitation(invitation, form.get("password") ?? "").pipe(
    Effect.flatMap(startSession),
    Effect.catchTags({
      InvitationRefused: () => Effect.succeed(refused()),
      InvalidRequest: (error) =>
        Effect.map(visitorToken, ({ token }) => htmlResponse(invitationPage(invitation, token, error.message), 422))
    })
  )
})
