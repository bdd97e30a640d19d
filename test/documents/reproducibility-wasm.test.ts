/**
 * v2 reproducibility through servers on the WebAssembly engine, which `npm start` runs:
 * reproducibility.test.ts again with PRESSROOM_RENDER_ENGINE=wasm (the suite's servers run the
 * native engine otherwise: test/helpers/render.ts says why). The variable is set before the file
 * loads, since the helpers read it then.
 */
process.env.PRESSROOM_RENDER_ENGINE = "wasm"
await import("./reproducibility.test.ts")
