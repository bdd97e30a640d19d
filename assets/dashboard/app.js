// The dashboard's one script (served from /app/assets/app.js; the Content-Security-Policy allows no
// inline script). Everything works without it but copying a new secret to the clipboard and the
// reload of a page that waits on a PDF.
"use strict"

document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-copy]") : null
  if (!button) return
  const field = document.getElementById(button.getAttribute("data-copy"))
  const status = document.getElementById(button.getAttribute("data-copy-status"))
  if (!field) return
  try {
    await navigator.clipboard.writeText(field.value)
    if (status) status.textContent = "Copied to the clipboard."
  } catch {
    // No clipboard permission (an insecure origin, say): select the text for the person to copy.
    field.select()
    if (status) status.textContent = "Selected: press Ctrl+C (or ⌘C) to copy."
  }
})

// A secret field selects itself whole when focused, to copy by hand.
document.addEventListener("focusin", (event) => {
  if (event.target instanceof HTMLInputElement && event.target.hasAttribute("data-select-on-focus")) event.target.select()
})

// A page that waits on the server (a PDF still typesetting) reloads itself after the seconds its
// data-refresh-after says; without the script it offers a link to check.
for (const waiting of document.querySelectorAll("[data-refresh-after]")) {
  setTimeout(() => location.reload(), Number(waiting.getAttribute("data-refresh-after")) * 1000)
}
