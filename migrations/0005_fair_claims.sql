-- Fair claims across owners (src/jobs/fair-claim.ts). The claim walks the owners with queued jobs
-- and reads, for each, its oldest queued job and the start of its latest render: an index probe
-- each, so a claim costs with the number of owners waiting, not with the length of their queues.
create index jobs_queued_by_owner on jobs (account_id, next_attempt_at, accepted_at) where status = 'queued';
create index jobs_started_by_owner on jobs (account_id, started_at) where started_at is not null;
