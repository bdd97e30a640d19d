/**
 * The dashboard's responses, each with the headers of contract section 12: a Content-Security-
 * Policy with no inline or remote script (every asset from the server itself), no framing
 * (`frame-ancestors 'none'`; the preview PDF's route passes `'self'`), `Referrer-Policy:
 * same-origin`, and no caching of pages, which can hold a secret shown once.
 */
import { HttpServerResponse } from "@effect/platform"
import type { Html } from "./html.ts"

export type FrameAncestors = "'none'" | "'self'"

export const contentSecurityPolicy = (frameAncestors: FrameAncestors = "'none'") =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${frameAncestors}`
  ].join("; ")

/** `response` with the dashboard's security headers. */
export const secured = (response: HttpServerResponse.HttpServerResponse, frameAncestors: FrameAncestors = "'none'") =>
  HttpServerResponse.setHeaders(response, {
    "content-security-policy": contentSecurityPolicy(frameAncestors),
    "referrer-policy": "same-origin",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store"
  })

export const htmlResponse = (body: Html, status = 200, headers: Readonly<Record<string, string>> = {}) =>
  secured(HttpServerResponse.text(`<!doctype html>\n${body.text}`, { status, headers, contentType: "text/html; charset=utf-8" }))

/** 303 See Other: after a form, the browser follows with a GET. */
export const redirect = (location: string, headers: Readonly<Record<string, string>> = {}) =>
  secured(HttpServerResponse.empty({ status: 303, headers: { location, ...headers } }))
