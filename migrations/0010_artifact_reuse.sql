-- Renders reused by their manifest (src/jobs/reuse.ts, contract section 11). An artifact records
-- the manifest of the render that made its bytes and the key a later job of the same owner finds
-- it by: the manifest without its asset set, which the source determines. Artifacts written
-- before this migration have neither and are never reused.
alter table artifacts add column manifest_sha256 text check (manifest_sha256 ~ '^[a-f0-9]{64}$');
alter table artifacts add column reuse_key text check (reuse_key ~ '^[a-f0-9]{64}$');

-- The lookup: an available artifact of this owner with this key. Never across owners.
create index artifacts_reusable on artifacts (account_id, reuse_key) where status = 'available';

-- Artifacts sharing bytes share storage_key; bytes go when no available artifact names the key.
create index artifacts_holding_bytes on artifacts (storage_key) where status = 'available';
