/**
 * Import rules of src/ (ARCHITECTURE.md, the "Imports" invariants), checked by
 * `npm run check:imports` (scripts/check-imports.ts), which also refuses an import circle between
 * folders.
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No file-level import circle anywhere.",
      from: { path: "^src/" },
      to: { circular: true }
    },
    {
      name: "no-http-from-domain",
      severity: "error",
      comment: "src/http/ is the server: the domain never imports it (the CLI starts it; handlers are ruled below).",
      from: { path: "^src/", pathNot: ["^src/http/", "^src/cli/", "^src/[^/]+/http\\.ts$", "^src/client/"] },
      to: { path: "^src/http/" }
    },
    {
      name: "client-is-derived-from-the-api",
      severity: "error",
      comment: "Of src/http/, the typed client (src/client/) imports the API definition only.",
      from: { path: "^src/client/" },
      to: { path: "^src/http/", pathNot: "^src/http/api\\.ts$" }
    },
    {
      name: "client-stays-light",
      severity: "error",
      comment:
        "pressroom/client is a browser-sized dependency: nothing it reaches, however indirectly, is renderer, font, WebAssembly, worker or database code. The API definition it imports holds schemas and data only.",
      from: { path: "^src/client/" },
      to: {
        reachable: true,
        path: [
          "^src/render/engine/",
          "^src/render/fonts/",
          "^src/db/",
          "@electric-sql/pglite",
          "@myriaddreamin/",
          "node_modules/pg/",
          "node_modules/mupdf/",
          "^(node:)?worker_threads$"
        ]
      }
    },
    {
      name: "only-handlers-import-the-api",
      severity: "error",
      comment: "Of src/http/, a context's handlers (src/<context>/http.ts) import src/http/api.ts, and nothing else imports any of it.",
      from: { path: "^src/[^/]+/http\\.ts$" },
      to: { path: "^src/http/", pathNot: "^src/http/api\\.ts$" }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".json"] }
  }
}
