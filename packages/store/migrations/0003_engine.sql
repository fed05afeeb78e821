-- What the settlement engine needs beyond the first schema.

-- A command's submissions and when the next one is due: a refused submission is retried with
-- the same command id after a backoff, and given up after a bounded number of attempts.
ALTER TABLE ledger_commands ADD COLUMN submissions INTEGER NOT NULL DEFAULT 0
  CHECK (submissions >= 0);
ALTER TABLE ledger_commands ADD COLUMN retry_at TIMESTAMPTZ;
-- Set when a payout or refund settled as a two-step offer: its accept, reject, withdrawal or
-- expiry arrives as an update of someone else's command (or of none) and is matched by offer.
ALTER TABLE ledger_commands ADD COLUMN offer_id TEXT;
CREATE INDEX ledger_commands_by_offer ON ledger_commands (offer_id) WHERE offer_id IS NOT NULL;
CREATE INDEX ledger_commands_due ON ledger_commands (retry_at, created_at)
  WHERE status = 'recorded';

-- A deposit offer is withdrawn or expires by an update that names only the offer.
CREATE INDEX deposits_by_offer ON deposits (offer_id) WHERE offer_id IS NOT NULL;
