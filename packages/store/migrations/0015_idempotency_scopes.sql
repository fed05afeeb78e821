-- Idempotency keys on every mutating POST (docs/spec/protocol.md#idempotency), not only swap
-- creation. Keys belong to the principal that sent them, which is an API key on `/v1` and a
-- developer on `/api/sdk` (no API key there): `api_key_id` becomes `scope`, a principal named by
-- kind (`api_key:<keyId>`, `developer:<party>`), so one table and one primary key serve both
-- and a developer's keys can never meet an API key's.
--
-- A key is claimed before its request runs: a row without a response is a claim, held by the
-- request that wrote `claim_token`, until that request stores its response or gives the key
-- back. Rows stored before this migration are responses of `POST /v1/swaps`.
ALTER TABLE idempotency_records RENAME COLUMN api_key_id TO scope;
UPDATE idempotency_records SET scope = 'api_key:' || scope;
ALTER TABLE idempotency_records
  ALTER COLUMN response_status DROP NOT NULL,
  ALTER COLUMN response_body DROP NOT NULL,
  ADD COLUMN claim_token TEXT,
  ADD CONSTRAINT idempotency_records_response_whole
    CHECK ((response_status IS NULL) = (response_body IS NULL));
