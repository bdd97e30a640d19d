/**
 * v1 conversions through servers on the WebAssembly engine, which `npm start` runs: convert.test.ts
 * again with PRESSROOM_RENDER_ENGINE=wasm (the suite's servers run the native engine otherwise:
 * test/helpers/render.ts says why). The variable is set before the file loads, since the helpers
 * read it then; the file's servers are its own, since the run's shared ones are native.
 */
process.env.PRESSROOM_RENDER_ENGINE = "wasm"
await import("./convert.test.ts")
