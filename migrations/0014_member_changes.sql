-- What a member does records the member (contract section 12), beside the jobs and keys of 0012:
-- the rows a member creates, and each state change next to the time the change sets. Null when an
-- API key (or the operator) made the change. Member ids are uuids, never the account's own words,
-- so a document's deletion (0011) keeps them.
alter table documents add column created_by_member_id uuid references members (id);
alter table revisions add column created_by_member_id uuid references members (id);

alter table webhook_subscriptions add column created_by_member_id uuid references members (id);
-- Who made the current secret (beside secret_created_at): the creator, then whoever last rotated it.
alter table webhook_subscriptions add column secret_created_by_member_id uuid references members (id);
alter table webhook_subscriptions add column disabled_by_member_id uuid references members (id);

-- A custom template's deletion keeps the row (deleted_at), so who deleted it is kept beside it.
alter table custom_templates add column created_by_member_id uuid references members (id);
alter table custom_templates add column deleted_by_member_id uuid references members (id);

-- Who revoked a key (beside revoked_at); the first revocation's, as revoked_at is.
alter table api_keys add column revoked_by_member_id uuid references members (id);
