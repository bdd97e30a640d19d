/**
 * v1 conversions through servers on the WebAssembly engine, which `npm start` runs: convert.test.ts
 * again with PRESSROOM_RENDER_ENGINE=wasm (the suite's servers run the native engine otherwise:
 * test/helpers/render.ts says why). The variable is set before the file loads, since the helpers
 * read it then; the file's servers are its own, since the run's shared ones are native.
 */
import t from "tap"

process.env.PRESSROOM_RENDER_ENGINE = "wasm"
// A static import of the helpers above this line would read the variable before it is set.
const { serverEngine } = await import("../helpers/render.ts")
t.equal(serverEngine, "wasm", "the helpers see the engine this file sets")
await import("./convert.test.ts")
