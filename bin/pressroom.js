#!/usr/bin/env -S node --single-threaded-gc
// --single-threaded-gc: the render workers' collections must not take a core from the renders
// (README, "Documents are typeset in worker threads"). V8 reads it only at start.
// The sources are TypeScript; tsx loads them in Node (Deno runs src/cli/main.ts directly).
import { register } from "tsx/esm/api"

register()
await import("../src/cli/main.ts")
