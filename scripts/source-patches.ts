/**
 * Fixes carried for packages the build bundles, applied by esbuild as it reads their files (the
 * `sourcePatches` plugin of scripts/build.ts): no install script (npm 11 skips them), nothing
 * written into node_modules, and every process that runs the build (the server, the render
 * workers, the CLI) runs the fixed code. Each patch names the exact text it replaces, and the
 * build fails when that text is not in the file once: a new release of the package is read
 * again before the patch is carried over or dropped. test/render/source-patches.test.ts parses
 * every CommonMark and GFM example and the pathological corpus with and without the patches and
 * requires the same trees. Code run from the sources (tsx, Deno) runs the packages as published.
 */
import { readFile } from "node:fs/promises"
import type { Plugin } from "esbuild"

export interface SourcePatch {
  /** The file, as its path ends under node_modules. */
  readonly file: string
  readonly original: string
  readonly replacement: string
}

/**
 * micromark 4.0.3, its text initializer: the resolver that merges adjacent `data` tokens of a
 * text removes each run's tokens with a `splice` of the whole event array, so a paragraph of n
 * runs costs n times its length: `[a](` 50,000 times, 200,000 characters, took 17 s to parse (80%
 * of it here), autolink-like runs 3.7 s. The replacement keeps the first token of each run, moves
 * its end to the run's end, and compacts the array in one pass: the same events, in linear time
 * (1.0 s and 0.65 s). To be offered to micromark upstream.
 */
const linearTextResolver: SourcePatch = {
  file: "micromark/lib/initialize/text.js",
  original: `    let index = -1;
    /** @type {number | undefined} */
    let enter;

    // A rather boring computation (to merge adjacent \`data\` events) which
    // improves mm performance by 29%.
    while (++index <= events.length) {
      if (enter === undefined) {
        if (events[index] && events[index][1].type === "data") {
          enter = index;
          index++;
        }
      } else if (!events[index] || events[index][1].type !== "data") {
        // Don’t do anything if there is one data token.
        if (index !== enter + 2) {
          events[enter][1].end = events[index - 1][1].end;
          events.splice(enter + 2, index - enter - 2);
          index = enter + 2;
        }
        enter = undefined;
      }
    }
`,
  replacement: `    // Pressroom's patch (scripts/source-patches.ts): one pass, no splice.
    let write = 0;
    let index = 0;
    while (index < events.length) {
      if (events[index][1].type === "data") {
        // A data token's enter and exit are adjacent: a run of them is a run of pairs.
        let end = index + 2;
        while (end < events.length && events[end][1].type === "data") end += 2;
        if (end - index > 2) events[index][1].end = events[end - 1][1].end;
        events[write++] = events[index];
        events[write++] = events[index + 1];
        index = end;
      } else {
        events[write++] = events[index++];
      }
    }
    events.length = write;
`
}

export const SOURCE_PATCHES: ReadonlyArray<SourcePatch> = [linearTextResolver]

/** `source` with `patch` applied; throws when the text it replaces is not in it exactly once. */
export const applyPatch = (source: string, patch: SourcePatch): string => {
  const at = source.indexOf(patch.original)
  if (at < 0 || source.indexOf(patch.original, at + 1) >= 0) {
    throw new Error(
      `${patch.file} no longer holds the text scripts/source-patches.ts replaces: read the new release and carry the patch over, or drop it`
    )
  }
  return source.slice(0, at) + patch.replacement + source.slice(at + patch.original.length)
}

/** A path segment as a regular expression matching it literally. */
const literal = (segment: string): string => segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The esbuild plugin that applies SOURCE_PATCHES to the files it bundles. */
export const sourcePatches: Plugin = {
  name: "source-patches",
  setup(build) {
    for (const patch of SOURCE_PATCHES) {
      const filter = new RegExp(`node_modules[\\\\/]${patch.file.split("/").map(literal).join("[\\\\/]")}$`)
      build.onLoad({ filter }, async (args) => ({ contents: applyPatch(await readFile(args.path, "utf8"), patch), loader: "js" }))
    }
  }
}
