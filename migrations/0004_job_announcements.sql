-- A job announces its own changes: whichever statement queues it, ends it or asks to cancel it,
-- the trigger sends the notification within that statement, delivered at commit. No code path
-- can forget one, and none costs a round trip of its own. The channel names are those of
-- `src/jobs/signals.ts`; the payload is the job id.
create function pressroom_announce_job() returns trigger language plpgsql as $$
begin
  -- A retry due later is announced by the process that scheduled it, when it falls due.
  if new.status = 'queued' and new.next_attempt_at <= now()
     and (tg_op = 'INSERT' or old.status <> 'queued') then
    perform pg_notify('pressroom_job_queued', new.id::text);
  elsif new.status in ('succeeded', 'failed', 'cancelled')
     and (tg_op = 'INSERT' or old.status <> new.status) then
    perform pg_notify('pressroom_job_ended', new.id::text);
  end if;
  if tg_op = 'UPDATE' and new.status = 'running'
     and new.cancel_requested_at is not null and old.cancel_requested_at is null then
    perform pg_notify('pressroom_job_cancel', new.id::text);
  end if;
  return null;
end
$$;

create trigger jobs_announce
  after insert or update of status, cancel_requested_at on jobs
  for each row execute function pressroom_announce_job();
