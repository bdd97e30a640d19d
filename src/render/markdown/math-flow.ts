/**
 * The micromark construct for a display formula on lines of its own:
 *
 *     $$
 *     \int_0^1 x^2 \, dx = \frac{1}{3}
 *     $$
 *
 * Unlike micromark-extension-math's, whose block runs to the end of the document when no line
 * closes it and takes the rest of its opening line as meta (so a line `$$ signs everywhere` would
 * swallow what follows), a block here needs both fence lines: the opening one holds `$$` (or more
 * dollars) alone, and a line of at least as many dollars alone closes it in the same container.
 * Without one, the lines are read as prose. A closed block may interrupt a paragraph, as a fenced
 * code block does. (`$$ x = 1 $$` on a line alone is running text, made a block by math-mdast.ts.)
 *
 * Tokens are micromark-extension-math's (`mathFlow`, `mathFlowFence`, `mathFlowFenceSequence`,
 * `mathFlowValue` per line), which mdast-util-math turns into `math` nodes.
 */
import { factorySpace } from "micromark-factory-space"
import { markdownLineEnding } from "micromark-util-character"
import { codes, constants, types } from "micromark-util-symbol"
import type { Code, Construct, Effects, State, TokenizeContext } from "micromark-util-types"

/** The next line belongs to the same container (it is not a lazy continuation line). */
const nonLazyContinuation: Construct = {
  partial: true,
  tokenize(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
    const lineStart: State = (code) => (this.parser.lazy[this.now().line] ? nok(code) : ok(code))
    return (code) => {
      if (code === codes.eof) return nok(code)
      effects.enter(types.lineEnding)
      effects.consume(code)
      effects.exit(types.lineEnding)
      return lineStart
    }
  }
}

function tokenizeMathFlow(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
  const tail = this.events[this.events.length - 1]
  /** The opening fence's indent, taken off the formula's lines as a fenced code block does. */
  const indent = tail && tail[1].type === types.linePrefix ? tail[2].sliceSerialize(tail[1], true).length : 0
  const codeIndentedOff = this.parser.constructs.disable.null?.includes("codeIndented") ?? false
  let sizeOpen = 0

  const closingFence: Construct = {
    partial: true,
    tokenize(effects, ok, nok) {
      let size = 0
      const sequence: State = (code) => {
        if (code === codes.dollarSign) {
          size++
          effects.consume(code)
          return sequence
        }
        if (size < sizeOpen) return nok(code)
        effects.exit("mathFlowFenceSequence")
        return factorySpace(effects, after, types.whitespace)(code)
      }
      const after: State = (code) => {
        if (code !== codes.eof && !markdownLineEnding(code)) return nok(code)
        effects.exit("mathFlowFence")
        return ok(code)
      }
      const before: State = (code) => {
        effects.enter("mathFlowFence")
        effects.enter("mathFlowFenceSequence")
        return sequence(code)
      }
      return factorySpace(effects, before, types.linePrefix, codeIndentedOff ? undefined : constants.tabSize)
    }
  }

  const sequenceOpen: State = (code) => {
    if (code === codes.dollarSign) {
      effects.consume(code)
      sizeOpen++
      return sequenceOpen
    }
    if (sizeOpen < 2) return nok(code)
    effects.exit("mathFlowFenceSequence")
    return factorySpace(effects, openingEnd, types.whitespace)(code)
  }

  /** Nothing may follow the opening dollars on their line. */
  const openingEnd: State = (code) => {
    if (!markdownLineEnding(code)) return nok(code)
    effects.exit("mathFlowFence")
    return lineEnd(code)
  }

  /** At the end of the opening fence or of a formula line: the next line, in the same container, closes or continues. */
  const lineEnd: State = (code) => effects.attempt(nonLazyContinuation, lineStart, nok)(code)

  const lineStart: State = (code) => effects.attempt(closingFence, done, contentStart)(code)

  const contentStart: State = (code) =>
    indent > 0 ? factorySpace(effects, contentBefore, types.linePrefix, indent + 1)(code) : contentBefore(code)

  const contentBefore: State = (code) => {
    if (code === codes.eof) return nok(code)
    if (markdownLineEnding(code)) return lineEnd(code)
    effects.enter("mathFlowValue")
    return content(code)
  }

  const content: State = (code) => {
    if (code === codes.eof || markdownLineEnding(code)) {
      effects.exit("mathFlowValue")
      return contentBefore(code)
    }
    effects.consume(code)
    return content
  }

  const done: State = (code) => {
    effects.exit("mathFlow")
    return ok(code)
  }

  return (code: Code) => {
    effects.enter("mathFlow")
    effects.enter("mathFlowFence")
    effects.enter("mathFlowFenceSequence")
    return sequenceOpen(code)
  }
}

export const mathFlow: Construct = { name: "mathFlow", tokenize: tokenizeMathFlow, concrete: true }
