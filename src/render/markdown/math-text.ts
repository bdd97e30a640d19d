/**
 * The micromark construct for math in running text: `$…$` (inline), `$$…$$` (display) and
 * GitHub's `` $`…`$ `` (inline, the backticks not part of the formula).
 *
 * `$…$` follows Pandoc's `tex_math_dollars` rule (https://pandoc.org/MANUAL.html#math), not
 * micromark-extension-math's, which reads `costs $5 and the upgrade $10` as a formula: the opening
 * `$` has a non-space character right after it, the closing `$` a non-space character right before
 * it and no digit right after it. So prices, ranges and shell variables stay prose. Like Pandoc, a
 * backslash takes the character after it into the formula, so `\$` inside a formula does not close
 * it (outside one, CommonMark's character escape has already made `\$` a literal dollar sign).
 *
 * Where this deliberately differs from Pandoc, to keep CommonMark's precedences and prose safe:
 * - A formula may not contain a backtick: a code span in its way wins, as code spans win over every
 *   other inline construct in CommonMark (write `` $`…`$ `` for a formula that needs one).
 * - A run of `$` is taken whole (`previous` below): one opens inline math, two display math, more
 *   are text. A formula is closed only by a run of the same length: inside `$…$` any other run
 *   ends the attempt (the dollars stay text), inside `$$…$$` a single `$` is part of the formula.
 * - `$$…$$` needs a non-blank formula (Pandoc's only needs one character), so `$$ $$` is prose.
 * - Pandoc's `\text{…}` may hold a `$`; here a `$` inside `\text{…}` closes the formula unless escaped.
 *
 * Every attempt ends at the next run of dollars (in `$$…$$`, of two or more; in `` $`…`$ ``, at
 * the next run of as many backticks), so no opening that fails reads on to the paragraph's end.
 *
 * Tokens are those of micromark-extension-math (`mathText`, `mathTextSequence`, `mathTextData` per
 * line, `lineEnding` between lines), which mdast-util-math turns into `inlineMath` nodes.
 */
import { markdownLineEnding, markdownLineEndingOrSpace, unicodeWhitespace } from "micromark-util-character"
import { codes, types } from "micromark-util-symbol"
import type { Code, Construct, Effects, Previous, State, Token, TokenizeContext } from "micromark-util-types"

const isSpace = (code: Code): boolean => markdownLineEndingOrSpace(code) || unicodeWhitespace(code)

/** Not right after a `$` (unless that one was escaped), so that a run of dollars is taken whole. */
const previous: Previous = function (this: TokenizeContext, code) {
  return code !== codes.dollarSign || this.events[this.events.length - 1]?.[1].type === types.characterEscape
}

function tokenizeMathText(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
  let sizeOpen = 0
  let sizeClose = 0
  /** Backticks of the `` $`…`$ `` form's opening run. */
  let ticksOpen = 0
  /** Whether the formula so far has a non-space character, and ends in one. */
  let hasContent = false
  let lastWasSpace = false
  let inData = false
  /** The closing run being read, which turns out to be part of the formula when its length does not match. */
  let sequence: Token | undefined

  const enterData = () => {
    if (!inData) effects.enter("mathTextData")
    inData = true
  }
  const exitData = () => {
    if (inData) effects.exit("mathTextData")
    inData = false
  }
  /** A line ending inside the formula, as its own token like code spans have (container prefixes stay out). */
  const lineEnding = (code: Code, next: State): State => {
    exitData()
    effects.enter(types.lineEnding)
    effects.consume(code)
    effects.exit(types.lineEnding)
    lastWasSpace = true
    return next
  }
  /** A run of `$` (or backticks) that may close the formula: its own token until it turns out not to. */
  const closing = (closeRun: State, code: Code) => {
    exitData()
    sequence = effects.enter("mathTextSequence")
    sizeClose = 0
    return closeRun(code)
  }
  /** The run just read is part of the formula after all. */
  const asData = () => {
    effects.exit("mathTextSequence")
    sequence!.type = "mathTextData"
    lastWasSpace = false
    hasContent = true
  }
  /** One ordinary character of the formula. */
  const datum = (code: Code, next: State): State => {
    enterData()
    effects.consume(code)
    const space = isSpace(code)
    lastWasSpace = space
    if (!space) hasContent = true
    return next
  }

  /** Consumes a run of `marker`, counted by `count`, then goes on with `next`. */
  const run = (marker: Code, count: () => void, next: State): State => {
    const inRun: State = (code) => {
      if (code !== marker) return next(code)
      effects.consume(code)
      count()
      return inRun
    }
    return inRun
  }

  const start: State = (code) => {
    effects.enter("mathText")
    effects.enter("mathTextSequence")
    return openRun(code)
  }

  const afterOpen: State = (code) => {
    if (sizeOpen === 1 && code === codes.graveAccent) return ticksOpenRun(code)
    effects.exit("mathTextSequence")
    if (sizeOpen === 1) return code === codes.eof || isSpace(code) ? nok(code) : inline(code)
    if (sizeOpen === 2) return display(code)
    return nok(code)
  }

  /** Inside `$…$` (`closes` one) or `$$…$$` (two). */
  const between =
    (closes: 1 | 2): State =>
    (code) => {
      const inside = closes === 1 ? inline : display
      if (code === codes.eof || code === codes.graveAccent) return nok(code)
      if (code === codes.dollarSign) return closing(closeRun, code)
      if (markdownLineEnding(code)) return lineEnding(code, inside)
      if (code === codes.backslash) return datum(code, escaped(inside))
      return datum(code, inside)
    }
  /** After a backslash: the next character is the formula's, and never a space before the closing `$` (`$a\ $`). */
  const escaped =
    (inside: State): State =>
    (code) => {
      if (code === codes.eof || markdownLineEnding(code)) return inside(code)
      enterData()
      effects.consume(code)
      lastWasSpace = false
      hasContent = true
      return inside
    }
  const inline = between(1)
  const display = between(2)

  const afterClose: State = (code) => {
    if (sizeOpen === 1) {
      // Pandoc: a non-space before the closing `$`, no digit right after it (`$5-$10` is prose).
      if (sizeClose !== 1 || lastWasSpace || (code !== codes.eof && code >= codes.digit0 && code <= codes.digit9)) return nok(code)
      return close(code)
    }
    if (sizeClose === 2) return hasContent ? close(code) : nok(code)
    if (sizeClose > 2) return nok(code)
    // A single `$` inside `$$…$$` is part of the formula.
    asData()
    return display(code)
  }

  const close: State = (code) => {
    effects.exit("mathTextSequence")
    effects.exit("mathText")
    return ok(code)
  }

  /** `` $`…`$ ``: the opening run of backticks, then the formula taken literally until the same run and a `$`. */
  const afterTicksOpen: State = (code) => {
    effects.exit("mathTextSequence")
    return literal(code)
  }

  const literal: State = (code) => {
    if (code === codes.eof) return nok(code)
    if (code === codes.graveAccent) return closing(ticksCloseRun, code)
    if (markdownLineEnding(code)) return lineEnding(code, literal)
    return datum(code, literal)
  }

  /**
   * The first run as long as the opening one ends the attempt, as it would end a code span: a
   * formula if `$` follows, else the dollar is text and the backticks a code span. Searching on
   * would read to the end of the paragraph from every `` $` `` that never closes: quadratic time.
   */
  const afterTicksClose: State = (code) => {
    if (sizeClose === ticksOpen) {
      if (code !== codes.dollarSign || !hasContent) return nok(code)
      effects.consume(code)
      return close
    }
    // Backticks of another length: part of the formula.
    asData()
    return literal(code)
  }

  const openRun = run(codes.dollarSign, () => sizeOpen++, afterOpen)
  const closeRun = run(codes.dollarSign, () => sizeClose++, afterClose)
  const ticksOpenRun = run(codes.graveAccent, () => ticksOpen++, afterTicksOpen)
  const ticksCloseRun = run(codes.graveAccent, () => sizeClose++, afterTicksClose)

  return start
}

export const mathText: Construct = { name: "mathText", tokenize: tokenizeMathText, previous }
