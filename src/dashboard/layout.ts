/**
 * The page frame: one stylesheet and one script from `/app/assets/` (no inline script or style:
 * the Content-Security-Policy allows neither), a skip link, and for a signed-in member the
 * navigation and the `Sign out` button. Light and dark follow `prefers-color-scheme` (app.css).
 */
import { csrfField } from "./csrf.ts"
import { type Html, html } from "./html.ts"
import type { SignedIn } from "./member-context.ts"

/** The navigation, in order; a section's pages are those whose path starts with its `href`. */
export const NAV_ITEMS: ReadonlyArray<{ readonly href: string; readonly label: string }> = [
  { href: "/app/overview", label: "Overview" },
  { href: "/app/documents", label: "Documents" },
  { href: "/app/webhooks", label: "Webhooks" },
  { href: "/app/templates", label: "Templates" },
  { href: "/app/keys", label: "API keys" }
]

export interface DocumentOptions {
  readonly title: string
  readonly main: Html
  /** The signed-in member, for the navigation and `Sign out`; none on the pages before sign-in. */
  readonly member?: SignedIn
  /** The path of the current page, to mark its section in the navigation. */
  readonly path?: string
}

const navigation = (member: SignedIn, path: string | undefined) =>
  html`<nav aria-label="Main">
      <ul class="nav">
        ${NAV_ITEMS.map(
          (item) => html`<li><a href="${item.href}"${path?.startsWith(item.href) ? html` aria-current="page"` : ""}>${item.label}</a></li>`
        )}
      </ul>
    </nav>
    <div class="member">
      <span class="member-email">${member.session.email}</span>
      <form method="post" action="/app/sign-out">
        ${csrfField(member.session.csrfToken)}
        <button type="submit" class="button secondary">Sign out</button>
      </form>
    </div>`

export const document = ({ title, main, member, path }: DocumentOptions): Html =>
  html`<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <title>${title} · Pressroom</title>
    <link rel="stylesheet" href="/app/assets/app.css">
    <link rel="stylesheet" href="/app/assets/work.css">
    <script src="/app/assets/app.js" defer></script>
  </head>
  <body>
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href="/app">Pressroom</a>
      ${member ? navigation(member, path) : ""}
    </header>
    <main id="main" tabindex="-1">
      ${main}
    </main>
  </body>
</html>`
