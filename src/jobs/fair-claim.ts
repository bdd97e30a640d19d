/**
 * Which queued job a free render slot takes next: fair across owners (accounts), so that one
 * owner's queue of heavy documents cannot make everyone else wait behind it.
 *
 * Among the owners with a due queued job, the slot serves the owner that
 *   1. holds the fewest running renders, cluster-wide;
 *   2. then, whose latest render started longest ago (an owner never served first);
 *   3. then, whose oldest due job is oldest (`next_attempt_at`, then `accepted_at`);
 * and takes that owner's oldest due job. So while another owner waits, an owner gets no new
 * render unless every waiting owner holds as many as it does: a newcomer takes the next slot that
 * frees, and owners with work share the slots evenly (one worker takes turns). The order only
 * ranks; it never leaves a slot idle while a job is due (work-conserving): a lone owner gets every
 * slot, and an owner whose jobs all are being claimed by other slots (`skip locked`) is passed
 * over for the next.
 *
 * One statement, so the rule holds across processes; its running counts are those of the
 * statement's snapshot, so slots claiming at the same instant may each serve the same owner (one
 * render more than its share until the next claim, never a lost or doubled job). The owners are
 * walked by index (`migrations/0005_fair_claims.sql`), one probe each, so the claim's cost grows
 * with the number of owners waiting, not with the length of their queues.
 */
import type { SqlClient } from "@effect/sql"

export const claimFairly = (sql: SqlClient.SqlClient, owner: string, leaseMs: number) => sql`
  with recursive waiting (account_id) as (
    -- The owners with queued jobs, one index probe each (PostgreSQL before 18 has no skip scan).
    (select account_id from jobs where status = 'queued' order by account_id limit 1)
    union all
    select (
      select q.account_id from jobs q where q.status = 'queued' and q.account_id > w.account_id
      order by q.account_id limit 1
    )
    from waiting w where w.account_id is not null
  ),
  holding as (
    select account_id, count(*) as renders from jobs where status = 'running' group by account_id
  ),
  turns as (
    select w.account_id, coalesce(h.renders, 0) as renders,
           (select max(s.started_at) from jobs s where s.account_id = w.account_id and s.started_at is not null) as last_started,
           head.next_attempt_at, head.accepted_at
    from waiting w
    left join holding h on h.account_id = w.account_id
    cross join lateral (
      select q.next_attempt_at, q.accepted_at from jobs q where q.status = 'queued' and q.account_id = w.account_id
      order by q.next_attempt_at, q.accepted_at limit 1
    ) head
    where head.next_attempt_at <= now()
    -- Ordered here too, so that the plan ranks the owners before it locks any job: only the
    -- chosen owner's job is locked, not one per owner.
    order by renders, last_started nulls first, head.next_attempt_at, head.accepted_at
  )
  update jobs
  set status = 'running', attempt_count = attempt_count + 1, fencing_token = fencing_token + 1,
      lease_owner = ${owner}, lease_expires_at = now() + ${leaseMs} * interval '1 millisecond',
      started_at = coalesce(started_at, now())
  where id = (
    select next.id from turns t
    cross join lateral (
      select q.id from jobs q
      where q.status = 'queued' and q.account_id = t.account_id and q.next_attempt_at <= now()
      order by q.next_attempt_at, q.accepted_at
      limit 1
      for update skip locked
    ) next
    order by t.renders, t.last_started nulls first, t.next_attempt_at, t.accepted_at
    limit 1
  )
  returning *`
