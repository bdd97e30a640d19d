-- An idempotent request may end in an error that is saved and replayed (contract section 4). The
-- error is kept as its fields rather than as a rendered body, so that a replay is written afresh
-- with the new request's correlation id.
alter table idempotency_records add column response_error jsonb;
