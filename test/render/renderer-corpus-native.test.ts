/**
 * The recorded corpus rendered by the library on the native engine: renderer-corpus.test.ts
 * again with PRESSROOM_RENDER_ENGINE=native. The recorded bytes are the WebAssembly engine's, so
 * this shows that the engines agree on every document of the corpus. The variable is set before
 * the file loads, since the helpers read it then.
 */
import t from "tap"

process.env.PRESSROOM_RENDER_ENGINE = "native"
// A static import of the helpers above this line would read the variable before it is set.
const { testEngine } = await import("../helpers/render.ts")
t.equal(testEngine, "native", "the helpers see the engine this file sets")
await import("./renderer-corpus.test.ts")
