/**
 * bin/bundle.js, which every Node start goes through: a bundle reflects the sources as they are
 * when the process starts, whether a file changed its size or only its contents and time, and a
 * file saved just before a build is read again by the next start.
 */
import t from "tap"
import { mkdtempSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bundle } from "../../bin/bundle.js"

const dir = mkdtempSync(join(tmpdir(), "pressroom-bundle-"))
const entry = join(dir, "entry.ts")
const now = Date.now() / 1000

/** Writes a source file with the modification time it would have if saved `ageSeconds` ago. */
const save = (name: string, text: string, ageSeconds: number) => {
  writeFileSync(join(dir, name), text)
  utimesSync(join(dir, name), now, now - ageSeconds)
}
const seen = async (): Promise<string> => ((await import(bundle(entry) as string)) as { seen: string }).seen

t.test("a bundle follows its sources", async (t) => {
  save("entry.ts", `import { value } from "./value.ts"\nexport const seen: string = value\n`, 3_600)
  save("value.ts", `export const value = "first"\n`, 3_600)
  t.equal(await seen(), "first")
  t.equal(bundle(entry), bundle(entry), "unchanged sources give the same bundle")

  save("value.ts", `export const value = "other"\n`, 1_800)
  t.equal(await seen(), "other", "an edit that keeps the file's size is picked up")

  save("value.ts", `export const value = "a longer value"\n`, 1_800)
  t.equal(await seen(), "a longer value", "an edit that changes the size is picked up, even at the same time")

  save("value.ts", `export const value = "third"\n`, 0)
  t.equal(await seen(), "third", "a file saved just now is bundled")
  save("value.ts", `export const value = "again"\n`, 0)
  t.equal(await seen(), "again", "and read again by the next start, though its size and time are the same (times are coarse)")

  save("more.ts", `export const more = "!"\n`, 3_600)
  save("entry.ts", `import { value } from "./value.ts"\nimport { more } from "./more.ts"\nexport const seen: string = value + more\n`, 600)
  t.equal(await seen(), "again!", "a new import is followed")
})
