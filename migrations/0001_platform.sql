-- The service platform: accounts and keys, the unit ledger, rate-limit buckets, idempotency records,
-- custom templates, jobs, artifacts and the event outbox. The same SQL runs on PGlite and PostgreSQL.

create table accounts (
  id uuid primary key,
  name text not null check (length(name) between 1 and 200),
  plan text not null check (plan in ('free', 'monthly', 'yearly', 'credits', 'admin')),
  -- A custom monthly allowance; null means the plan's (contract section 6).
  monthly_units integer check (monthly_units >= 0),
  created_at timestamptz not null default now()
);

create table api_keys (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  -- The key's first characters (`pk_live_1a2b`), to recognise it in lists; never enough to use it.
  prefix text not null,
  -- Only the SHA-256 of the key is kept (contract section 2).
  secret_sha256 text not null unique check (secret_sha256 ~ '^[a-f0-9]{64}$'),
  scopes text[] not null,
  environment text not null check (environment in ('live', 'test')),
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index api_keys_account on api_keys (account_id);

-- Each credit pack adds 250 units that never expire.
create table credit_packs (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  packs integer not null check (packs > 0),
  units integer not null check (units > 0),
  created_at timestamptz not null default now()
);
create index credit_packs_account on credit_packs (account_id);

-- One row per reserved unit count of a final job. `source` says which pool it draws from:
-- the monthly allowance of `period_start`, or the account's credit packs.
create table unit_reservations (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  job_id uuid not null unique,
  period_start date not null,
  source text not null check (source in ('allowance', 'credit_pack', 'admin')),
  units integer not null check (units > 0),
  state text not null check (state in ('reserved', 'committed', 'released')),
  created_at timestamptz not null default now(),
  settled_at timestamptz
);
create index unit_reservations_account_period on unit_reservations (account_id, period_start, state);

create table rate_limit_buckets (
  account_id uuid not null references accounts (id),
  class text not null check (class in ('preview', 'publish', 'convert', 'read', 'write')),
  tokens double precision not null,
  refilled_at timestamptz not null,
  primary key (account_id, class)
);

create table idempotency_records (
  account_id uuid not null references accounts (id),
  operation text not null,
  key text not null,
  request_sha256 text not null,
  state text not null check (state in ('in_progress', 'completed')),
  response_status integer,
  response_headers jsonb,
  response_body text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (account_id, operation, key)
);
create index idempotency_records_expiry on idempotency_records (expires_at);

create table custom_templates (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  name text not null,
  base_template_id text not null,
  options jsonb not null,
  created_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index custom_templates_account on custom_templates (account_id, created_at desc);

create table jobs (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  document_id uuid,
  revision_id uuid,
  purpose text not null check (purpose in ('preview', 'final')),
  channel text not null,
  status text not null check (status in ('accepted', 'queued', 'running', 'succeeded', 'failed', 'cancelled')),
  attempt_count integer not null default 0 check (attempt_count between 0 and 100),
  -- What to render: markdown, templateId, locale, options, filename.
  render_request jsonb not null,
  request_sha256 text not null,
  entitlement jsonb not null,
  provenance jsonb not null,
  warnings jsonb not null default '[]',
  error jsonb,
  artifact_id uuid,
  -- The lease of the process rendering the job (after the job ends, `lease_owner` names the
  -- process that ended it). `fencing_token` grows with every claim, so a process whose lease
  -- lapsed can no longer write the job.
  lease_owner text,
  lease_expires_at timestamptz,
  fencing_token integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  cancel_requested_at timestamptz,
  accepted_at timestamptz not null default now(),
  queued_at timestamptz,
  started_at timestamptz,
  completed_at timestamptz
);
create index jobs_claimable on jobs (next_attempt_at) where status = 'queued';
create index jobs_leased on jobs (lease_expires_at) where status = 'running';
create index jobs_account on jobs (account_id, accepted_at desc);

create table artifacts (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  job_id uuid not null unique references jobs (id),
  revision_id uuid,
  status text not null check (status in ('available', 'expired', 'deleting', 'deleted')),
  filename text not null,
  bytes integer not null check (bytes >= 1),
  page_count integer not null check (page_count >= 1),
  sha256 text not null check (sha256 ~ '^[a-f0-9]{64}$'),
  storage_key text not null,
  created_at timestamptz not null default now(),
  finalized_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index artifacts_expiry on artifacts (expires_at) where status = 'available';

-- Events written in the same transaction as a job's terminal state; webhook delivery reads them.
create table outbox_events (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  job_id uuid not null references jobs (id),
  type text not null check (type in ('job.succeeded', 'job.failed', 'job.cancelled')),
  payload jsonb not null,
  created_at timestamptz not null default now(),
  dispatched_at timestamptz
);
create index outbox_events_pending on outbox_events (created_at) where dispatched_at is null;
