-- Webhook deliveries (contract section 10): one row per outbox event and subscription, written by
-- the dispatcher's fan-out (src/webhooks/dispatcher.ts) and sent by its delivery fibers
-- (src/webhooks/delivery.ts). The row's id is the delivery's `webhook-id` and its body's `id`, the
-- same on every attempt.
create table webhook_deliveries (
  id uuid primary key,
  event_id uuid not null references outbox_events (id),
  subscription_id uuid not null references webhook_subscriptions (id),
  account_id uuid not null references accounts (id),
  job_id uuid not null references jobs (id),
  event_type text not null check (event_type in ('job.succeeded', 'job.failed', 'job.cancelled')),
  -- pending: an attempt is due at next_attempt_at (or one is under way, under a lease);
  -- delivered: a 2xx; failed: the retry schedule is exhausted, or the endpoint answered 410;
  -- dropped: its subscription was disabled before it was delivered.
  status text not null check (status in ('pending', 'delivered', 'failed', 'dropped')),
  attempt_count integer not null default 0 check (attempt_count >= 0),
  next_attempt_at timestamptz not null,
  -- The process sending an attempt, until when: a delivery held by a dead process is taken again
  -- once its lease has lapsed.
  lease_owner text,
  lease_expires_at timestamptz,
  -- The last attempt: the endpoint's status code, or why there was none; how long it took; the
  -- start of the endpoint's answer.
  last_attempt_at timestamptz,
  last_status_code integer,
  last_failure_reason text,
  last_duration_ms integer,
  last_excerpt text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (event_id, subscription_id)
);
-- The claim: due pending deliveries, oldest due first.
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';
-- Dropping a disabled subscription's pending deliveries.
create index webhook_deliveries_by_subscription on webhook_deliveries (subscription_id) where status = 'pending';

-- When the subscription's deliveries started failing without a success since (null while the last
-- ended delivery succeeded): past PRESSROOM_WEBHOOK_DISABLE_AFTER_SECONDS it is disabled.
alter table webhook_subscriptions add column failing_since timestamptz;

-- The backlog: events written before deliveries existed are of v1 jobs, which answer in the
-- request and send no events.
update outbox_events set dispatched_at = now() where dispatched_at is null;

-- An event announces itself as 0004's trigger does for jobs, so dispatchers wake without polling.
create function pressroom_announce_outbox_event() returns trigger language plpgsql as $$
begin
  perform pg_notify('pressroom_outbox_event', new.id::text);
  return null;
end
$$;

create trigger outbox_events_announce
  after insert on outbox_events
  for each row execute function pressroom_announce_outbox_event();

-- New pending deliveries wake every process's delivery fibers: once per statement, since one
-- fan-out writes many and any fiber may take any of them; not at all for a fan-out that wrote
-- none (events of v1 jobs, owners without subscriptions).
create function pressroom_announce_deliveries() returns trigger language plpgsql as $$
begin
  if exists (select 1 from written where status = 'pending') then
    perform pg_notify('pressroom_webhook_deliveries', '');
  end if;
  return null;
end
$$;

create trigger webhook_deliveries_announce
  after insert on webhook_deliveries
  referencing new table as written
  for each statement execute function pressroom_announce_deliveries();
