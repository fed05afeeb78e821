-- Developer collections: a developer takes their accrued earnings (half of each charged platform
-- fee, fee_events.developer_earnings) of one pool and instrument to their own party. The amount
-- leaves the swap party as a `collect` ledger command under the same exactly-once rules as a
-- payout: the collection, its command and the move of the amount from the pool's `fees` books to
-- `outgoing` are written in one transaction before anything is submitted.
CREATE TABLE developer_collections (
  collection_id    TEXT PRIMARY KEY,
  developer_party  TEXT NOT NULL REFERENCES developers (party_id),
  pool_id          TEXT NOT NULL REFERENCES pools (pool_id),
  side             TEXT NOT NULL CHECK (side IN ('a', 'b')),
  instrument_id    TEXT NOT NULL,
  instrument_admin TEXT NOT NULL,
  amount           NUMERIC(38, 10) NOT NULL CHECK (amount > 0),
  -- pending: recorded, not confirmed; offered: the transfer became an offer the developer must
  -- accept; collected: the amount arrived; returned: it never left, or came back, and counts as
  -- accrued again.
  status           TEXT NOT NULL CHECK (status IN ('pending', 'offered', 'collected', 'returned')),
  command_id       TEXT NOT NULL UNIQUE,
  update_id        TEXT,
  offer_id         TEXT,
  offer_expires_at TIMESTAMPTZ,
  error            TEXT,
  created_at       TIMESTAMPTZ NOT NULL,
  settled_at       TIMESTAMPTZ,
  CHECK (status <> 'collected' OR update_id IS NOT NULL)
);
CREATE INDEX developer_collections_by_developer
  ON developer_collections (developer_party, pool_id, side, created_at);

ALTER TABLE ledger_commands ADD COLUMN collection_id TEXT
  REFERENCES developer_collections (collection_id);
ALTER TABLE ledger_commands DROP CONSTRAINT ledger_commands_check;
ALTER TABLE ledger_commands ADD CONSTRAINT ledger_commands_subject_check
  CHECK (intent_id IS NOT NULL OR deposit_id IS NOT NULL OR collection_id IS NOT NULL);
ALTER TABLE ledger_commands DROP CONSTRAINT ledger_commands_leg_check;
ALTER TABLE ledger_commands ADD CONSTRAINT ledger_commands_leg_check
  CHECK (leg IN ('accept', 'payout', 'refund', 'reject', 'withdraw', 'collect'));

-- Earnings and usage are read per developer over time.
CREATE INDEX intents_by_developer ON intents (developer_party, created_at);
