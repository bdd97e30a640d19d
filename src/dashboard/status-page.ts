/** A page that says why a request was not answered (404, 403, 401 …), in the dashboard's frame but without its navigation. */
import { type Html, html } from "./html.ts"
import { document } from "./layout.ts"

const TITLES: Readonly<Record<number, string>> = {
  400: "Bad request",
  401: "Signed out",
  403: "Refused",
  404: "Not found",
  410: "No longer valid",
  413: "Too large",
  415: "Not a form",
  500: "Something went wrong"
}

export const statusPage = (status: number, message: Html | string) =>
  document({
    title: TITLES[status] ?? "Error",
    main: html`<h1>${TITLES[status] ?? "Error"}</h1>
      <p>${message}</p>
      <p><a href="/app">Back to the dashboard</a></p>`
  })
