-- Treasury sweeps (docs/spec/treasury.md): the platform's share of a pool side's fees, and the
-- network fees it recovered, leave the pool's swap party for the operator's treasury party. The
-- amount leaves as a `sweep` ledger command under the same exactly-once rules as a payout: the
-- sweep, its command and the move of the amount from the pool's `fees` books to `outgoing` are
-- written in one transaction before anything is submitted.
CREATE TABLE treasury_sweeps (
  sweep_id         TEXT PRIMARY KEY,
  pool_id          TEXT NOT NULL REFERENCES pools (pool_id),
  side             TEXT NOT NULL CHECK (side IN ('a', 'b')),
  instrument_id    TEXT NOT NULL,
  instrument_admin TEXT NOT NULL,
  treasury_party   TEXT NOT NULL,
  amount           NUMERIC(38, 10) NOT NULL CHECK (amount > 0),
  -- automatic: the worker's schedule; operator: `poolparty admin treasury sweep`.
  trigger          TEXT NOT NULL CHECK (trigger IN ('automatic', 'operator')),
  -- pending: recorded, not confirmed; offered: the transfer became an offer the treasury must
  -- accept; swept: the amount arrived; returned: it never left, or came back, and is among the
  -- fees again.
  status           TEXT NOT NULL CHECK (status IN ('pending', 'offered', 'swept', 'returned')),
  command_id       TEXT NOT NULL UNIQUE,
  update_id        TEXT,
  offer_id         TEXT,
  offer_expires_at TIMESTAMPTZ,
  error            TEXT,
  created_at       TIMESTAMPTZ NOT NULL,
  settled_at       TIMESTAMPTZ,
  CHECK (status <> 'swept' OR update_id IS NOT NULL)
);
-- The schedule reads each side's latest sweep; the metrics sum them per pool, side and status.
CREATE INDEX treasury_sweeps_by_side ON treasury_sweeps (pool_id, side, created_at);

-- Keeps every leg and subject 0011 allows, and adds the sweep's.
ALTER TABLE ledger_commands ADD COLUMN sweep_id TEXT REFERENCES treasury_sweeps (sweep_id);
ALTER TABLE ledger_commands DROP CONSTRAINT ledger_commands_subject_check;
ALTER TABLE ledger_commands ADD CONSTRAINT ledger_commands_subject_check CHECK (
  intent_id IS NOT NULL OR deposit_id IS NOT NULL OR collection_id IS NOT NULL
  OR liquidity_intent_id IS NOT NULL OR liquidity_deposit_id IS NOT NULL
  OR withdrawal_id IS NOT NULL OR sweep_id IS NOT NULL);
ALTER TABLE ledger_commands DROP CONSTRAINT ledger_commands_leg_check;
ALTER TABLE ledger_commands ADD CONSTRAINT ledger_commands_leg_check CHECK (leg IN (
  'accept', 'payout', 'refund', 'reject', 'withdraw', 'collect',
  'lp_accept', 'forward', 'lp_return', 'lp_payout', 'sweep'));
