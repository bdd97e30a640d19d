#!/usr/bin/env node
// The sources are TypeScript; Node runs them as a bundle made at start (bin/bundle.js). Deno runs
// src/cli/main.ts directly.
import { bundle } from "./bundle.js"

await import(bundle("src/cli/main.ts"))
