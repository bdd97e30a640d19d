-- Delivery history (GET /api/v2/webhooks/{id}/deliveries, an extension of the specification):
-- every attempt of a delivery, not only its last, and redelivery on the owner's request.

create table webhook_delivery_attempts (
  delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
  attempt integer not null check (attempt >= 1),
  started_at timestamptz not null,
  duration_ms integer not null check (duration_ms >= 0),
  -- The endpoint's status code, or why there was none (refused by the address guard, a timeout, a
  -- connection failure); a 3xx has both (redirects are not followed).
  status_code integer,
  failure_reason text,
  -- The start of the endpoint's answer (src/webhooks/sender.ts, EXCERPT_BYTES).
  response_excerpt text,
  primary key (delivery_id, attempt)
);

-- 0008 kept the last attempt on the delivery's row: it becomes that delivery's one known attempt.
insert into webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, failure_reason, response_excerpt)
select id, attempt_count, last_attempt_at - make_interval(secs => coalesce(last_duration_ms, 0) / 1000.0),
  coalesce(last_duration_ms, 0), last_status_code, last_failure_reason, last_excerpt
from webhook_deliveries where last_attempt_at is not null and attempt_count >= 1;

alter table webhook_deliveries
  drop column last_attempt_at,
  drop column last_status_code,
  drop column last_failure_reason,
  drop column last_duration_ms,
  drop column last_excerpt,
  -- The pending attempt was asked for by the owner (redeliver): it is tried once, not on the
  -- retry schedule.
  add column redelivery boolean not null default false;

-- The history, newest first, a page at a time.
create index webhook_deliveries_history on webhook_deliveries (subscription_id, created_at desc, id desc);

-- The sweeper: ended deliveries whose last change is past the history period, then dispatched
-- events no delivery names any more.
create index webhook_deliveries_ended on webhook_deliveries (updated_at) where status <> 'pending';
create index outbox_events_dispatched on outbox_events (dispatched_at) where dispatched_at is not null;
