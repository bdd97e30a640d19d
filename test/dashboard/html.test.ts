/** The dashboard's HTML templates escape every interpolation, once, however they nest. */
import t from "tap"
import { escapeHtml, html, trustedHtml } from "../../src/dashboard/html.ts"

const hostile = `<script>alert("x")</script>&'`

t.equal(escapeHtml(hostile), "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;")
t.equal(html`<p>${hostile}</p>`.text, `<p>${escapeHtml(hostile)}</p>`, "text content")
t.equal(html`<input value="${hostile}">`.text, `<input value="${escapeHtml(hostile)}">`, "a quoted attribute")
t.equal(
  html`<ul>${["a<b", "c&d"].map((item) => html`<li>${item}</li>`)}</ul>`.text,
  "<ul><li>a&lt;b</li><li>c&amp;d</li></ul>",
  "nested templates and arrays are escaped once"
)
t.equal(html`<p>${null}${undefined}${false}${0}</p>`.text, "<p>0</p>", "null, undefined and false write nothing; 0 is a number")
t.equal(html`<div>${trustedHtml("<svg></svg>")}</div>`.text, "<div><svg></svg></div>", "trusted markup is kept")
t.equal(html`${html`${hostile}`}`.text, escapeHtml(hostile), "escaping twice nests to escaping once")
