#!/usr/bin/env node
// The pressroom command as `npm run build` made it (dist/; npm install builds it). Nothing is
// checked or built here: a start only loads the build. Deno runs src/cli/main.ts directly.
import { existsSync } from "node:fs"

const entry = new URL("../dist/pressroom.js", import.meta.url)
if (!existsSync(entry)) {
  process.stderr.write("pressroom: dist/ is not built: run npm run build\n")
  process.exit(1)
}
await import(entry.href)
