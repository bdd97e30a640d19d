-- Webhook subscriptions (specification 2.15 and 2.16, contract section 10). The signing secrets are
-- kept only encrypted (AES-256-GCM under a key derived from the server key, src/webhooks/secrets.ts),
-- so a reader of the database cannot sign; the fingerprint is a truncated SHA-256 of the secret,
-- which shows which secret is current and signs nothing.
create table webhook_subscriptions (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  endpoint text not null,
  -- A JSON array of 1 to 3 distinct event types.
  event_types jsonb not null,
  description text,
  status text not null check (status in ('active', 'disabled')),
  created_at timestamptz not null,
  updated_at timestamptz not null,
  disabled_at timestamptz,
  -- The current secret: its version (1, then one more at each rotation), when it was made, its
  -- fingerprint, and the secret sealed with the subscription id and the version as associated data.
  secret_version integer not null check (secret_version >= 1),
  secret_created_at timestamptz not null,
  secret_fingerprint text not null check (secret_fingerprint ~ '^[a-f0-9]{16}$'),
  secret_sealed text not null,
  -- After a rotation, the secret of version secret_version - 1, which also signs until
  -- previous_secret_expires_at (PRESSROOM_WEBHOOK_ROTATION_OVERLAP_SECONDS after the rotation).
  previous_secret_sealed text,
  previous_secret_expires_at timestamptz,
  check ((previous_secret_sealed is null) = (previous_secret_expires_at is null)),
  check ((status = 'disabled') = (disabled_at is not null))
);
-- The list, newest first, and the count of an owner's active subscriptions against the cap.
create index webhook_subscriptions_listing on webhook_subscriptions (account_id, created_at desc, id desc);
