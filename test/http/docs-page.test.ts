/**
 * The /docs page reads without a script (issue 38): the HTML a running server sends, with every
 * <script> element removed, names every operation of its OpenAPI document with its summary, under
 * its tag with the tag's description; and nothing on it comes from the network.
 */
import t from "tap"
import { sharedServer } from "../helpers/shared-server.ts"

/** HTML-escaped as the page writes text, code spans aside. */
const escaped = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
const withoutCode = (html: string) => html.replace(/<\/?code>/g, "`")

t.test("/docs holds every operation's name and summary outside any script", async (t) => {
  const server = await sharedServer(t, "pglite")
  const spec = await (await fetch(`${server.url}/api/v2/openapi.json`)).json()
  const response = await fetch(`${server.url}/docs`)
  t.equal(response.status, 200)
  t.match(response.headers.get("content-type"), /^text\/html/)
  t.ok(response.headers.get("x-correlation-id"), "the page keeps the headers of every answer")
  const html = await response.text()
  t.notMatch(html, /<script[^>]+src=["']https?:/, "no script loaded from the network")
  const readable = withoutCode(html.replace(/<script[\s\S]*?<\/script>/g, ""))

  let operations = 0
  for (const [path, item] of Object.entries<Record<string, { operationId?: string; summary?: string }>>(spec.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation?.operationId) continue
      operations++
      t.ok(operation.summary, `${operation.operationId} has a summary`)
      t.ok(
        readable.includes(`\`${method.toUpperCase()}\``) && readable.includes(`\`${escaped(path)}\``),
        `${method} ${path} is on the page`
      )
      t.ok(
        readable.includes(`<strong>${operation.operationId}</strong> ${escaped(operation.summary ?? "")}`),
        `${operation.operationId} and its summary`
      )
    }
  }
  t.ok(operations >= 33, `${operations} operations`)
  for (const tag of spec.tags as Array<{ name: string; description: string }>) {
    t.ok(readable.includes(`<h2>${escaped(tag.name)}</h2>\n<p>${escaped(tag.description)}</p>`), `the tag ${tag.name} with its description`)
  }
})
