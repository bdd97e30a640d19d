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

/**
 * micromark-core-commonmark 2.0.4, its attention resolver: each time an opening and a closing
 * sequence of `*` or `_` match, the resolver walks back over everything between them, resolves it
 * again and splices the whole event array, then takes up what is left of the same two sequences.
 * Runs of n markers on each side (`**…**deep**…**`) nest n/2 groups at n times the document's
 * length each: 200,000 characters did not parse in 30 s. The replacement, while the same two
 * sequences match again (what the published loop finds first: nothing between them is a sequence
 * any more), nests their groups around what it resolved once, and splices once: the same tree
 * (test/render/source-patches.test.ts), in linear time. To be offered upstream.
 */
const nestedAttention: SourcePatch = {
  file: "micromark-core-commonmark/lib/attention.js",
  original: `          // Number of markers to use from the sequence.
          const use = events[open][1].end.offset - events[open][1].start.offset > 1 && events[index][1].end.offset - events[index][1].start.offset > 1 ? 2 : 1;
          const start = {
            ...events[open][1].end
          };
          const end = {
            ...events[index][1].start
          };
          movePoint(start, -use);
          movePoint(end, use);
          const openingSequence = {
            type: use > 1 ? "strongSequence" : "emphasisSequence",
            start,
            end: {
              ...events[open][1].end
            }
          };
          const closingSequence = {
            type: use > 1 ? "strongSequence" : "emphasisSequence",
            start: {
              ...events[index][1].start
            },
            end
          };
          const text = {
            type: use > 1 ? "strongText" : "emphasisText",
            start: {
              ...events[open][1].end
            },
            end: {
              ...events[index][1].start
            }
          };
          const group = {
            type: use > 1 ? "strong" : "emphasis",
            start: {
              ...openingSequence.start
            },
            end: {
              ...closingSequence.end
            }
          };
          events[open][1].end = {
            ...openingSequence.start
          };
          events[index][1].start = {
            ...closingSequence.end
          };
          nextEvents = [];

          // If there are more markers in the opening, add them before.
          if (events[open][1].end.offset - events[open][1].start.offset) {
            nextEvents = push(nextEvents, [['enter', events[open][1], context], ['exit', events[open][1], context]]);
          }

          // Opening.
          nextEvents = push(nextEvents, [['enter', group, context], ['enter', openingSequence, context], ['exit', openingSequence, context], ['enter', text, context]]);

          // Always populated by defaults.

          // Between.
          nextEvents = push(nextEvents, resolveAll(context.parser.constructs.insideSpan.null, events.slice(open + 1, index), context));

          // Closing.
          nextEvents = push(nextEvents, [['exit', text, context], ['enter', closingSequence, context], ['exit', closingSequence, context], ['exit', group, context]]);

          /** @type {number} */
          let offset = 0;

          // If there are more markers in the closing, add them after.
          if (events[index][1].end.offset - events[index][1].start.offset) {
            offset = 2;
            nextEvents = push(nextEvents, [['enter', events[index][1], context], ['exit', events[index][1], context]]);
          }
          splice(events, open - 1, index - open + 3, nextEvents);
          index = open + nextEvents.length - offset - 2;
          break;
`,
  replacement: `          // Pressroom's patch (scripts/source-patches.ts): the same two sequences matched again and
          // again (a run of markers on each side) nest their groups in one pass and one splice.
          const opener = events[open][1];
          const closer = events[index][1];
          // Each group's opening and closing events, innermost group first.
          const openings = [];
          const closings = [];
          const between = resolveAll(context.parser.constructs.insideSpan.null, events.slice(open + 1, index), context);
          for (;;) {
            // Number of markers to use from the sequence.
            const use = opener.end.offset - opener.start.offset > 1 && closer.end.offset - closer.start.offset > 1 ? 2 : 1;
            const start = {
              ...opener.end
            };
            const end = {
              ...closer.start
            };
            movePoint(start, -use);
            movePoint(end, use);
            const openingSequence = {
              type: use > 1 ? "strongSequence" : "emphasisSequence",
              start,
              end: {
                ...opener.end
              }
            };
            const closingSequence = {
              type: use > 1 ? "strongSequence" : "emphasisSequence",
              start: {
                ...closer.start
              },
              end
            };
            const text = {
              type: use > 1 ? "strongText" : "emphasisText",
              start: {
                ...opener.end
              },
              end: {
                ...closer.start
              }
            };
            const group = {
              type: use > 1 ? "strong" : "emphasis",
              start: {
                ...openingSequence.start
              },
              end: {
                ...closingSequence.end
              }
            };
            opener.end = {
              ...openingSequence.start
            };
            closer.start = {
              ...closingSequence.end
            };
            openings.push([['enter', group, context], ['enter', openingSequence, context], ['exit', openingSequence, context], ['enter', text, context]]);
            closings.push([['exit', text, context], ['enter', closingSequence, context], ['exit', closingSequence, context], ['exit', group, context]]);
            const openerSize = opener.end.offset - opener.start.offset;
            const closerSize = closer.end.offset - closer.start.offset;
            // Walking back from what is left of the closer, the published loop meets what is left
            // of the opener first (the group between them holds no sequence any more): it matches
            // again unless the rule of three sends it further back.
            if (!openerSize || !closerSize || (opener._close || closer._open) && closerSize % 3 && !((openerSize + closerSize) % 3)) {
              break;
            }
          }
          nextEvents = [];

          // If there are more markers in the opening, add them before.
          if (opener.end.offset - opener.start.offset) {
            nextEvents = push(nextEvents, [['enter', opener, context], ['exit', opener, context]]);
          }

          // Opening, outermost group first.
          for (let group = openings.length - 1; group >= 0; group--) {
            nextEvents = push(nextEvents, openings[group]);
          }

          // Between.
          nextEvents = push(nextEvents, between);

          // Closing, innermost group first.
          for (const closing of closings) {
            nextEvents = push(nextEvents, closing);
          }

          /** @type {number} */
          let offset = 0;

          // If there are more markers in the closing, add them after.
          if (closer.end.offset - closer.start.offset) {
            offset = 2;
            nextEvents = push(nextEvents, [['enter', closer, context], ['exit', closer, context]]);
          }
          splice(events, open - 1, index - open + 3, nextEvents);
          index = open + nextEvents.length - offset - 2;
          break;
`
}

/**
 * micromark-extension-gfm-autolink-literal 2.1.0: before each `www.`, `http` or e-mail literal
 * it may start, the extension walks back over the paragraph's events for an unbalanced `[` or
 * `![` (no literal inside a link's text). It remembers a walk that found none, but not one that
 * found one, so text after an unclosed bracket is walked back over again at every `h` and `w`:
 * nested links (`[` 9,000 times, then `](https://example.com)` as often) took 19 s to parse. The
 * replacement remembers the bracket found as well, on the last token, with its index; a later
 * walk that reaches that token, the bracket still at that index, takes the answer when the
 * bracket is still unbalanced and otherwise goes on from the bracket (brackets only ever become
 * balanced, and a resolved one leaves the array). To be offered upstream.
 */
const rememberedUnbalancedBracket: SourcePatch = {
  file: "micromark-extension-gfm-autolink-literal/lib/syntax.js",
  original: `function previousUnbalanced(events) {
  let index = events.length;
  let result = false;
  while (index--) {
    const token = events[index][1];
    if ((token.type === 'labelLink' || token.type === 'labelImage') && !token._balanced) {
      result = true;
      break;
    }

    // If we’ve seen this token, and it was marked as not having any unbalanced
    // bracket before it, we can exit.
    if (token._gfmAutolinkLiteralWalkedInto) {
      result = false;
      break;
    }
  }
  if (events.length > 0 && !result) {
    // Mark the last token as “walked into” w/o finding
    // anything.
    events[events.length - 1][1]._gfmAutolinkLiteralWalkedInto = true;
  }
  return result;
}`,
  replacement: `function previousUnbalanced(events) {
  // Pressroom's patch (scripts/source-patches.ts): a walk that finds a bracket is remembered too.
  let index = events.length;
  let found;
  while (index--) {
    const token = events[index][1];
    if ((token.type === 'labelLink' || token.type === 'labelImage') && !token._balanced) {
      found = { token, index };
      break;
    }
    if (token._gfmAutolinkLiteralWalkedInto) break;
    // A bracket an earlier walk found from here, still where it was and before here (a token
    // that wraps it is met again at its enter, after the bracket): nothing between it and here
    // is an unbalanced bracket or a mark, so it is the answer, or the walk goes on from it.
    const seen = token._pressroomUnbalancedBracket;
    if (seen && seen.index < index && events[seen.index][1] === seen.token) {
      if (!seen.token._balanced) {
        found = seen;
        break;
      }
      index = seen.index;
    }
  }
  if (events.length > 0) {
    if (found) events[events.length - 1][1]._pressroomUnbalancedBracket = found;
    else events[events.length - 1][1]._gfmAutolinkLiteralWalkedInto = true;
  }
  return found !== undefined;
}`
}

/**
 * micromark-extension-gfm-footnote 2.1.0: at each `]` the extension walks back over the
 * paragraph's events for the `![` a footnote call could have started, up to the nearest link,
 * label or call. Text after the last of those is walked over again at every `]`: nested links
 * spent 6 of their 7.5 s here. The replacement leaves on the last token where the walk stopped,
 * with its index; a later walk that reaches that token, the stop still at its index, goes on from
 * the stop (nothing between them is a bracket, a link or a call: those are only ever added at the
 * end or wrap what came after them). To be offered upstream.
 */
const rememberedFootnoteWalk: SourcePatch = {
  file: "micromark-extension-gfm-footnote/lib/syntax.js",
  original: `  // Find an opening.
  while (index--) {
    const token = self.events[index][1];
    if (token.type === "labelImage") {
      labelStart = token;
      break;
    }

    // Exit if we’ve walked far enough.
    if (token.type === 'gfmFootnoteCall' || token.type === "labelLink" || token.type === "label" || token.type === "image" || token.type === "link") {
      break;
    }
  }
`,
  replacement: `  // Find an opening. Pressroom's patch (scripts/source-patches.ts): a walk's stop is remembered.
  while (index--) {
    const token = self.events[index][1];
    if (token.type === "labelImage") {
      labelStart = token;
      break;
    }

    // Exit if we’ve walked far enough.
    if (token.type === 'gfmFootnoteCall' || token.type === "labelLink" || token.type === "label" || token.type === "image" || token.type === "link") {
      break;
    }
    // Taken up again at the stop itself (none: the walk reached the start), when it is still
    // where it was and before here (a token that wraps it is met again at its enter).
    const stop = token._pressroomFootnoteWalk;
    if (stop && stop.index < index && (stop.index < 0 || self.events[stop.index][1] === stop.token)) {
      index = stop.index + 1;
    }
  }
  if (self.events.length > 0) {
    self.events[self.events.length - 1][1]._pressroomFootnoteWalk = index < 0 ? { index: -1 } : { token: self.events[index][1], index };
  }
`
}

/**
 * micromark-core-commonmark 2.0.4, its label-end resolver: each time a link or image closes, it
 * walks back over everything inside to find the opening bracket, resolves all of it again
 * (emphasis, strikethrough, data) and copies it into a new array spliced in. Images nested in
 * images (`![` 18,000 times, `deep`, then `](x.png)` as often) did not parse in minutes: 2,000
 * levels took 7.5 s, 4,000 took 33. The replacement records on each link or image it closes how
 * many events it spans; a later walk passes over one whose enter and exit are still that far
 * apart (every bracket inside is balanced or resolved), the resolvers are given each as its
 * enter and exit alone (what they would find inside was resolved when it closed), and when they
 * change nothing the label closes where its events are instead of copying them, its opening
 * written over the label start and the room that start left (`roomForMedia`). To be offered
 * upstream.
 */
const closedMediaPassedOver: ReadonlyArray<SourcePatch> = [
  {
    file: "micromark-core-commonmark/lib/label-end.js",
    original: `        open = index;
        if (token.type !== "labelLink") {
          offset = 2;
          break;
        }
      }
    } else if (token.type === "labelEnd") {`,
    replacement: `        open = index;
        if (token.type !== "labelLink") {
          offset = 2;
          break;
        }
      } else if (events[index][0] === 'exit' && pressroomClosedMedia(events, index - token._pressroomEvents + 1, token)) {
        // Pressroom's patch: every bracket inside closed media is balanced or gone, none opens this label.
        index -= token._pressroomEvents - 1;
      }
    } else if (token.type === "labelEnd") {`
  },
  {
    file: "micromark-core-commonmark/lib/label-end.js",
    original: `  media = [['enter', group, context], ['enter', label, context]];
`,
    replacement: `  // Pressroom's patch: between the brackets, each closed media as its enter and exit alone (what
  // the resolvers would find inside was resolved when it closed).
  const inside = [];
  /** @type {Map<Event, number>} */
  const closed = new Map();
  for (let at = open + offset + 5; at < close - 3; at++) {
    const event = events[at];
    inside.push(event);
    if (event[0] === 'enter' && pressroomClosedMedia(events, at, event[1])) {
      closed.set(event, at);
      at += event[1]._pressroomEvents - 2;
    }
  }
  // The resolvers may change the array they are given in place: compared with a copy.
  const before = inside.slice();
  const resolved = resolveAll(context.parser.constructs.insideSpan.null, inside, context);
  if (resolved.length === before.length && resolved.every((event, at) => event === before[at])) {
    // Nothing moved: the label closes around the events where they are, its opening written
    // over the label start and the room it left (nothing after it moves).
    events[close - 3] = ['exit', text, context];
    events[close] = ['exit', label, context];
    events.push(['exit', group, context]);
    for (let at = open + offset + 2; at > open; at--) events[at + 1] = events[at];
    events[open] = ['enter', group, context];
    events[open + 1] = ['enter', label, context];
    events[open + offset + 4] = ['enter', text, context];
    group._pressroomEvents = events.length - open;
    return events;
  }
  const between = [];
  for (const event of resolved) {
    between.push(event);
    const at = closed.get(event);
    if (at !== undefined) for (let inner = at + 1; inner < at + event[1]._pressroomEvents - 1; inner++) between.push(events[inner]);
  }
  media = [['enter', group, context], ['enter', label, context]];
`
  },
  {
    file: "micromark-core-commonmark/lib/label-end.js",
    original: `  media = push(media, resolveAll(context.parser.constructs.insideSpan.null, events.slice(open + offset + 4, close - 3), context));`,
    replacement: `  media = push(media, between);`
  },
  {
    file: "micromark-core-commonmark/lib/label-end.js",
    original: `  splice(events, open, events.length, media);
  return events;
}
`,
    replacement: `  splice(events, open, events.length, media);
  group._pressroomEvents = events.length - open;
  return events;
}

/** Pressroom's patch: whether closed media (a link or image made here, as many events apart as when it closed) open at index at as token. */
function pressroomClosedMedia(events, at, token) {
  const size = token._pressroomEvents;
  return size !== undefined && at >= 0 && events[at][0] === 'enter' && events[at][1] === token && events[at + size - 1] !== undefined && events[at + size - 1][0] === 'exit' && events[at + size - 1][1] === token;
}
`
  }
]

/**
 * micromark-core-commonmark 2.0.4, its label-end tokenizer: at each `]` it serializes and
 * normalizes everything since the opening bracket to look it up among the document's link
 * definitions, also when there are none: nested images spent a third of their parse here,
 * copying every level's text again. The replacement looks only when there is a definition.
 */
const noDefinitionsNoLookUp: SourcePatch = {
  file: "micromark-core-commonmark/lib/label-end.js",
  original: `    defined = self.parser.defined.includes(normalizeIdentifier(self.sliceSerialize({`,
  replacement: `    // Pressroom's patch (scripts/source-patches.ts): no definitions, nothing to look up.
    defined = self.parser.defined.length > 0 && self.parser.defined.includes(normalizeIdentifier(self.sliceSerialize({`
}

/**
 * mdast-util-from-markdown 2.1.0: as each link or image ends its label, the text of the label is
 * serialized, decoded and normalized in case it names a reference, and dropped again when a
 * resource follows, as it almost always does. For images nested in images each label is all the
 * images inside it, read again at every level. The replacement keeps the label's token and reads
 * it only for a collapsed or shortcut reference.
 */
const labelReadForReferences: ReadonlyArray<SourcePatch> = [
  {
    file: "mdast-util-from-markdown/lib/index.js",
    original: `  function onexitlink() {
    const node = this.stack[this.stack.length - 1];
`,
    replacement: `  function onexitlink() {
    const node = this.stack[this.stack.length - 1];
    pressroomLabelFromText.call(this, node);
`
  },
  {
    file: "mdast-util-from-markdown/lib/index.js",
    original: `  function onexitimage() {
    const node = this.stack[this.stack.length - 1];
`,
    replacement: `  function onexitimage() {
    const node = this.stack[this.stack.length - 1];
    pressroomLabelFromText.call(this, node);
`
  },
  {
    file: "mdast-util-from-markdown/lib/index.js",
    original: `  function onexitlabeltext(token) {
    const string = this.sliceSerialize(token);
    const ancestor = this.stack[this.stack.length - 2];
    // @ts-expect-error: stash this on the node, as it might become a reference
    // later.
    ancestor.label = decodeString(string);
    // @ts-expect-error: same as above.
    ancestor.identifier = normalizeIdentifier(string).toLowerCase();
  }
`,
    replacement: `  function onexitlabeltext(token) {
    // Pressroom's patch: kept as its token until the link or image is known to be a reference.
    this.stack[this.stack.length - 2]._pressroomLabelText = token;
  }

  /**
   * Pressroom's patch: a collapsed or shortcut reference is named by its label's text, read
   * when the link or image ends (a full reference's string has named it already).
   *
   * @this {CompileContext}
   * @param {Node} node
   */
  function pressroomLabelFromText(node) {
    const token = node._pressroomLabelText;
    delete node._pressroomLabelText;
    if (token === undefined || !this.data.inReference || this.data.referenceType === 'full') return;
    const string = this.sliceSerialize(token);
    node.label = decodeString(string);
    node.identifier = normalizeIdentifier(string).toLowerCase();
  }
`
  }
]

/**
 * micromark-core-commonmark 2.0.4, its label starts: a link's or image's opening is one event
 * longer than its label start (the group, the label and the label's text open where the start's
 * enter and exit were), so each link or image that closed was spliced in, moving every event
 * after it: images nested 18,181 deep moved the whole array once a level (their parse: 6.6 s,
 * and 1.5 s with this patch; docs/performance.md).
 * The replacement has each label start leave one event of room after it, a token of its own
 * (`pressroomMediaRoom`) that `closedMediaPassedOver` writes over; the resolver that turns the
 * starts no media took into data drops the room left after them.
 */
const roomForMedia: ReadonlyArray<SourcePatch> = [
  ...(["label-start-image.js", "label-start-link.js"] as const).map((file) => ({
    file: `micromark-core-commonmark/lib/${file}`,
    original: `    self._labelStarts = self._labelStarts || [];
    self._labelStarts.push(${file === "label-start-image.js" ? "labelImage" : "labelLink"});
    return ok(code);`,
    replacement: `    self._labelStarts = self._labelStarts || [];
    self._labelStarts.push(${file === "label-start-image.js" ? "labelImage" : "labelLink"});
    // Pressroom's patch (scripts/source-patches.ts): room for the link or image to open in.
    const room = { type: 'pressroomMediaRoom', start: self.now(), end: self.now() };
    self.events.push(['enter', room, self]);
    return ok(code);`
  })),
  {
    file: "micromark-core-commonmark/lib/label-end.js",
    original: `    const token = events[index][1];
    newEvents.push(events[index]);
    if (token.type === "labelImage" || token.type === "labelLink" || token.type === "labelEnd") {`,
    replacement: `    const token = events[index][1];
    // Pressroom's patch: the room a label start left for a link or image that never opened.
    if (token.type === 'pressroomMediaRoom') continue;
    newEvents.push(events[index]);
    if (token.type === "labelImage" || token.type === "labelLink" || token.type === "labelEnd") {`
  }
]

/**
 * micromark 4.0.3, its document initializer: after each lazy line (a line continuing a paragraph
 * in a block quote or list item without their markers) it walks back over the flow's events for a
 * token still open across the line, and finds the paragraph's, which opened at its first line: n
 * lazy lines cost n², `> a` and 40,000 lines 74 s. The walk returns as soon as any token is open
 * across the line, so the token an earlier walk found, still at its index in the same flow's
 * events and still open across this line, gives the same answer at once. To be offered upstream.
 */
const rememberedLazyOpen: ReadonlyArray<SourcePatch> = [
  {
    file: "micromark/lib/initialize/document.js",
    original: `  let lineStartOffset;
`,
    replacement: `  let lineStartOffset;
  /** Pressroom's patch (scripts/source-patches.ts): what the last walk after a lazy line found open. */
  let pressroomLazyOpen;
`
  },
  {
    file: "micromark/lib/initialize/document.js",
    original: `    if (self.parser.lazy[token.start.line]) {
      let index = childFlow.events.length;
      while (index--) {`,
    replacement: `    if (self.parser.lazy[token.start.line]) {
      // Pressroom's patch: the token the last walk found open answers alike while it is in the
      // same flow's events where it was, and open across this line.
      const open = pressroomLazyOpen;
      if (open && open.flow === childFlow && childFlow.events[open.index] !== undefined && childFlow.events[open.index][1] === open.token && open.token.start.offset < lineStartOffset && (!open.token.end || open.token.end.offset > lineStartOffset)) {
        return;
      }
      let index = childFlow.events.length;
      while (index--) {`
  },
  {
    file: "micromark/lib/initialize/document.js",
    original: `          // Exit: there’s still something open, which means it’s a lazy line
          // part of something.
          return;`,
    replacement: `          // Exit: there’s still something open, which means it’s a lazy line
          // part of something.
          pressroomLazyOpen = { flow: childFlow, index, token: childFlow.events[index][1] };
          return;`
  }
]

/**
 * mdast-util-from-markdown 2.1.0: each list, as it closes, is walked from its start to its end to
 * find its own items, the events of every list and block quote inside it included, which it
 * passes over without a change; then its list item events are merged in by taking the list's
 * events off the array and pushing them back, nested lists again. n lists nested in each other
 * cost n times their events: 445 list items indented one level deeper per line spent 8.6 s of an
 * 18 s parse in this function. The replacement counts each list's and block quote's events as it
 * closes, so that an enclosing list's walk jumps from such a container's enter to its exit, and
 * leaves a list's item events beside the event they go before, merged in once for the whole
 * document before the tree is built. An enclosing list walks and adds items only between its own
 * items, never inside a container it holds, so the counts stay right. To be offered upstream.
 */
const nestedListsInLinearTime: ReadonlyArray<SourcePatch> = [
  {
    file: "mdast-util-from-markdown/lib/index.js",
    original: `    const listStack = [];
`,
    replacement: `    const listStack = [];
    /** Pressroom's patch (scripts/source-patches.ts): the block quotes open, as listStack holds the lists. */
    const pressroomQuoteStack = [];
`
  },
  {
    file: "mdast-util-from-markdown/lib/index.js",
    original: `        if (events[index][0] === 'enter') {
          listStack.push(prepared.length - 1);
        } else {
          const tail = listStack.pop();
          prepareList(prepared, tail);
        }
      }
    }
    events = prepared;`,
    replacement: `        if (events[index][0] === 'enter') {
          listStack.push(prepared.length - 1);
        } else {
          const tail = listStack.pop();
          prepareList(prepared, tail);
          // Pressroom's patch: how many events on from its enter the list exits.
          prepared[tail][1]._pressroomSpan = prepared.length - 1 - tail;
        }
      } else if (events[index][1].type === "blockQuote") {
        // Pressroom's patch: the same for a block quote.
        if (events[index][0] === 'enter') {
          pressroomQuoteStack.push(prepared.length - 1);
        } else {
          const tail = pressroomQuoteStack.pop();
          prepared[tail][1]._pressroomSpan = prepared.length - 1 - tail;
        }
      }
    }
    // Pressroom's patch: each list's item events merged in before the events prepareList left them beside.
    events = [];
    for (const event of prepared) {
      if (event._pressroomBefore !== undefined) events.push(...event._pressroomBefore);
      events.push(event);
    }`
  },
  {
    file: "mdast-util-from-markdown/lib/index.js",
    original: `            if (event[0] === 'enter') {
              containerBalance++;
            } else {`,
    replacement: `            if (event[0] === 'enter') {
              containerBalance++;
              // Pressroom's patch: a container inside the list, passed over to its exit.
              if (containerBalance > 0 && event[1]._pressroomSpan !== undefined) index += event[1]._pressroomSpan - 1;
            } else {`
  },
  {
    file: "mdast-util-from-markdown/lib/index.js",
    original: `    const listEvents = events.splice(start);
    let insertion = 0;
    index = -1;
    while (++index < listEvents.length) {
      while (insertion < insertions.length && insertions[insertion].at === start + index) {
        events.push(insertions[insertion++].event);
      }
      events.push(listEvents[index]);
    }
`,
    replacement: `    // Pressroom's patch: left beside the event each goes before, merged in once by compile.
    for (const insertion of insertions) {
      const before = events[insertion.at];
      if (before._pressroomBefore === undefined) before._pressroomBefore = [];
      before._pressroomBefore.push(insertion.event);
    }
`
  }
]

export const SOURCE_PATCHES: ReadonlyArray<SourcePatch> = [
  linearTextResolver,
  nestedAttention,
  rememberedUnbalancedBracket,
  rememberedFootnoteWalk,
  ...closedMediaPassedOver,
  ...roomForMedia,
  noDefinitionsNoLookUp,
  ...labelReadForReferences,
  ...rememberedLazyOpen,
  ...nestedListsInLinearTime
]

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
    // One loader per file: esbuild takes the first loader that answers, so a file's patches are applied together.
    for (const file of new Set(SOURCE_PATCHES.map((patch) => patch.file))) {
      const patches = SOURCE_PATCHES.filter((patch) => patch.file === file)
      const filter = new RegExp(`node_modules[\\\\/]${file.split("/").map(literal).join("[\\\\/]")}$`)
      build.onLoad({ filter }, async (args) => ({ contents: patches.reduce(applyPatch, await readFile(args.path, "utf8")), loader: "js" }))
    }
  }
}
