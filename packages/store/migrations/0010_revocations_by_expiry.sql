-- Expired wallet-token revocations are purged in batches, oldest first; without an index each
-- batch would read the whole table.
CREATE INDEX wallet_token_revocations_by_expiry ON wallet_token_revocations (expires_at);
