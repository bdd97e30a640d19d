/**
 * A command that would open an embedded database another live process holds is refused before it
 * starts, in one line that says what to do instead (src/db/folder-lock.ts; the database layer
 * takes the folder itself, this only words the refusal for the command line).
 */
import { Effect } from "effect"
import { databaseConfig } from "../db/config.ts"
import { FolderInUse, holderOfFolder } from "../db/folder-lock.ts"

export const refuseHeldFolder = (): void => {
  const config = Effect.runSync(Effect.option(databaseConfig))
  if (config._tag === "None" || config.value._tag !== "embedded") return
  const holder = holderOfFolder(config.value.dataDir)
  if (holder !== undefined) throw new FolderInUse(config.value.dataDir, holder)
}
