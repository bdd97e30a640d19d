/**
 * Math in Markdown, as GitHub writes it and with Pandoc's rule for single dollars: the micromark
 * extension (math-text.ts, math-flow.ts) and the mdast extension (math-mdast.ts) that parse.ts uses.
 * ```` ```math ```` fences are not handled here: they stay `code` nodes with lang "math".
 */
import { codes } from "micromark-util-symbol"
import type { Extension } from "micromark-util-types"
import { mathFlow } from "./math-flow.ts"
import { mathText } from "./math-text.ts"

declare module "micromark-util-types" {
  interface TokenTypeMap {
    mathFlow: "mathFlow"
    mathFlowFence: "mathFlowFence"
    mathFlowFenceSequence: "mathFlowFenceSequence"
    mathFlowValue: "mathFlowValue"
    mathText: "mathText"
    mathTextSequence: "mathTextSequence"
    mathTextData: "mathTextData"
  }
}

/** The micromark extension: `$$` blocks in flow, `$…$`, `$$…$$` and `` $`…`$ `` in text. */
export const mathSyntax = (): Extension => ({
  flow: { [codes.dollarSign]: mathFlow },
  text: { [codes.dollarSign]: mathText }
})
