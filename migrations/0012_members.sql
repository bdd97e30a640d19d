-- The dashboard's people (contract section 12): members of one account each, the invitations that
-- let them choose a password, their sessions, and the failed sign-ins that throttle an email.

create table members (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  -- Lower-cased when stored: one person, one email, one account.
  email text not null unique check (length(email) between 3 and 254),
  -- scrypt's own string (`scrypt$N$r$p$salt$hash`, src/members/password.ts); null until an
  -- invitation is accepted.
  password_hash text,
  created_at timestamptz not null default now()
);
create index members_account on members (account_id);

create table invitations (
  id uuid primary key,
  member_id uuid not null references members (id),
  -- Only the SHA-256 of the invitation's token is kept; the URL carries the token.
  token_sha256 text not null unique check (token_sha256 ~ '^[a-f0-9]{64}$'),
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index invitations_member on invitations (member_id);

create table sessions (
  id uuid primary key,
  member_id uuid not null references members (id),
  -- Only the SHA-256 of the cookie's token is kept.
  token_sha256 text not null unique check (token_sha256 ~ '^[a-f0-9]{64}$'),
  -- The form token of this session (CSRF), sent in every form; not a credential by itself.
  csrf_token text not null,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  ended_at timestamptz
);
create index sessions_member on sessions (member_id);

-- One row per failed sign-in, by the email as typed (lower-cased), whether or not a member has it.
create table sign_in_failures (
  email text not null,
  failed_at timestamptz not null default now()
);
create index sign_in_failures_email on sign_in_failures (email, failed_at);

-- Keys for people: a name to tell them apart, when each was last used, and who made it.
alter table api_keys add column name text check (length(name) between 1 and 100);
alter table api_keys add column last_used_at timestamptz;
alter table api_keys add column created_by_member_id uuid references members (id);

-- What a member does records the member (jobs made from the dashboard).
alter table jobs add column member_id uuid references members (id);
