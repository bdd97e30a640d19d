/**
 * What a render worker says about a trap, without the document in it. Before it traps, the
 * compiler's panic hook writes the panic message to the console, and the message quotes the text
 * being typeset (krilla's "byte index 65535 is not a char boundary; it is inside 'é' … of
 * `éééé…`") with a stack: every crash put user text in the service's log. A worker therefore
 * writes none of the compiler's console output and keeps only where the panic happened, a source
 * location inside the compiler's crates.
 */

/** A trap (RuntimeError, failed memory.grow) or a font that failed to load: the instance is unusable. */
export class Trapped extends Error {}

/** A font file that failed to load (changed or gone on disk): the service's fault, not the document's. */
export class FontUnavailable extends Trapped {}

/** `krilla-0.6.0/src/text/group.rs:453:21` out of the absolute path of the crate's file on the build machine. */
const PANIC_LOCATION = /panicked at (?:\S*\/)?([\w.-]+\/src\/[^\s:]+:\d+:\d+)/

let lastPanic: string | undefined

/** Replaces this thread's console: nothing the compiler writes reaches the log; a panic's location is noted. */
export const keepCompilerConsole = (): void => {
  const note = (...args: ReadonlyArray<unknown>): void => {
    const location = PANIC_LOCATION.exec(args.map(String).join(" "))
    if (location) lastPanic = location[1]
  }
  console.error = note
  console.warn = note
  console.info = note
  console.log = note
  console.debug = note
}

/**
 * A bounded description of why a job's pipeline failed unexpectedly: the trap's kind and the
 * panic's location, a font file's name, or only the kind of a JavaScript error (whose message
 * could quote the document).
 */
export const describeTrap = (error: unknown): string => {
  const panic = lastPanic
  lastPanic = undefined
  if (error instanceof FontUnavailable) return error.message
  if (error instanceof Trapped) return `${error.message.split("\n")[0]!.slice(0, 120)}${panic ? ` (panicked at ${panic})` : ""}`
  return `${error instanceof Error ? error.name : typeof error} thrown while typesetting`
}
