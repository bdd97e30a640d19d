/**
 * Settings of lifetimes and leases that must be positive refuse a start otherwise: artifact
 * lifetimes at least 1 s, the job lease at least 300 ms, the shutdown grace 0 or more.
 */
import { type Config, ConfigProvider, Effect, Exit } from "effect"
import t from "tap"
import { retentionConfig } from "../../src/artifacts/config.ts"
import { supervisorConfig } from "../../src/jobs/retry-policy.ts"

const read = <A>(config: Config.Config<A>, name: string, value: string) =>
  Effect.runSyncExit(Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map([[name, value]]))))

t.test("artifact lifetimes: at least 1 second", async (t) => {
  for (const name of ["PRESSROOM_PREVIEW_TTL_SECONDS", "PRESSROOM_FINAL_TTL_SECONDS"]) {
    t.ok(Exit.isSuccess(read(retentionConfig, name, "1")), `${name}=1 taken`)
    for (const value of ["0", "-5"]) t.ok(Exit.isFailure(read(retentionConfig, name, value)), `${name}=${value} refused`)
  }
})

t.test("the job lease: at least 300 ms; the shutdown grace: 0 or more", async (t) => {
  t.ok(Exit.isSuccess(read(supervisorConfig, "PRESSROOM_JOB_LEASE_MS", "300")))
  for (const value of ["299", "0", "-1"])
    t.ok(Exit.isFailure(read(supervisorConfig, "PRESSROOM_JOB_LEASE_MS", value)), `lease ${value} refused`)
  t.ok(Exit.isSuccess(read(supervisorConfig, "PRESSROOM_SHUTDOWN_GRACE_MS", "0")))
  t.ok(Exit.isFailure(read(supervisorConfig, "PRESSROOM_SHUTDOWN_GRACE_MS", "-1")), "grace -1 refused")
})
