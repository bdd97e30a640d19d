-- The v2 lifecycle: managed documents and their immutable revisions (specification 2.4 to 2.6),
-- and artifact bytes kept in the database when several processes share one PostgreSQL.

create table documents (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  task_id text not null,
  title text,
  -- The locale of the latest revision's spec.
  locale text not null,
  status text not null check (status in ('active', 'deleting', 'deleted')),
  latest_revision_id uuid,
  revision_count integer not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  last_activity_at timestamptz not null,
  -- last_activity_at plus the source window (PRESSROOM_DOCUMENT_WINDOW_SECONDS), moved by activity.
  expires_at timestamptz not null,
  delete_requested_at timestamptz,
  deleted_at timestamptz
);
-- The list: newest first, with the id as tie-breaker, deleted documents left out.
create index documents_listing on documents (account_id, created_at desc, id desc) where status <> 'deleted';
create index documents_window on documents (expires_at) where status = 'active';
create index documents_deleting on documents (delete_requested_at) where status = 'deleting';

create table revisions (
  id uuid primary key,
  document_id uuid not null references documents (id),
  parent_revision_id uuid references revisions (id),
  sequence integer not null check (sequence >= 1),
  -- The source; null once the document is deleted (its hash and size stay).
  markdown text,
  source_bytes integer not null check (source_bytes >= 1),
  source_sha256 text not null check (source_sha256 ~ '^[a-f0-9]{64}$'),
  -- The spec exactly as submitted; spec_sha256 is the SHA-256 of its JCS (contract section 11).
  spec jsonb not null,
  spec_sha256 text not null check (spec_sha256 ~ '^[a-f0-9]{64}$'),
  created_at timestamptz not null,
  unique (document_id, sequence)
);

create index jobs_document on jobs (document_id) where document_id is not null;

-- An artifact's deletion, as its Retention object shows it (specification 2.3).
alter table artifacts add column delete_requested_at timestamptz;
alter table artifacts add column deleted_at timestamptz;

-- Artifact bytes on PostgreSQL (src/artifacts/database-store.ts): every process of a cluster
-- reads what any of them rendered. Embedded, the bytes are files under the data folder.
create table artifact_blobs (
  key text primary key,
  bytes bytea not null,
  created_at timestamptz not null default now()
);
