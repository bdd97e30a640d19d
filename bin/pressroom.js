#!/usr/bin/env node
// The sources are TypeScript; tsx loads them in Node (Deno runs src/cli/main.ts directly).
import { register } from "tsx/esm/api"

register()
await import("../src/cli/main.ts")
