-- Liquidity provision (docs/spec/liquidity.md): providers deposit both tokens of a pool to its LP
-- party under one reference, the service forwards them to the swap party and mints units; units
-- are burned for two payouts. Every amount's whereabouts is a row's status, so the books of both
-- parties can be compared with their holdings.

CREATE TABLE liquidity_intents (
  liquidity_intent_id  TEXT PRIMARY KEY,
  pool_id              TEXT NOT NULL REFERENCES pools (pool_id),
  api_key_id           TEXT NOT NULL REFERENCES api_keys (key_id),
  developer_party      TEXT NOT NULL,
  provider_party       TEXT NOT NULL,
  deposit_address      TEXT NOT NULL,
  deposit_reference    TEXT NOT NULL UNIQUE CHECK (char_length(deposit_reference) <= 32),
  -- What the provider said they would send, per side, and the units that would mint at the
  -- reserves when the intent was created.
  expected_a           NUMERIC(38, 10) NOT NULL CHECK (expected_a > 0),
  expected_b           NUMERIC(38, 10) NOT NULL CHECK (expected_b > 0),
  expected_units       NUMERIC(38, 10) NOT NULL CHECK (expected_units > 0),
  minimum_units        NUMERIC(38, 10) NOT NULL CHECK (minimum_units >= 0),
  slippage_bps         INTEGER NOT NULL CHECK (slippage_bps BETWEEN 0 AND 10000),
  -- pending: nothing arrived; partial: one side arrived; joining: both arrived, being forwarded
  -- to the swap party; completed: units minted; refunding: what arrived is on its way back;
  -- refunded, expired, cancelled: ended; refund_failed: an operator returns the funds.
  status               TEXT NOT NULL CHECK (status IN ('pending', 'partial', 'joining', 'completed',
                         'refunding', 'refunded', 'expired', 'cancelled', 'refund_failed')),
  failure_code         TEXT,
  failure_message      TEXT,
  -- Facts of completion, NULL before.
  minted_units         NUMERIC(38, 10),
  joined_a             NUMERIC(38, 10),
  joined_b             NUMERIC(38, 10),
  returned_a           NUMERIC(38, 10),
  returned_b           NUMERIC(38, 10),
  created_at           TIMESTAMPTZ NOT NULL,
  expires_at           TIMESTAMPTZ NOT NULL,
  completed_at         TIMESTAMPTZ,
  updated_at           TIMESTAMPTZ NOT NULL,
  CHECK (minimum_units <= expected_units),
  CHECK (expires_at > created_at),
  CHECK (status <> 'completed' OR minted_units IS NOT NULL)
);
-- One open intent per provider and pool: the second side of a deposit needs no guessing.
CREATE UNIQUE INDEX liquidity_intents_one_open ON liquidity_intents (provider_party, pool_id)
  WHERE status IN ('pending', 'partial');
CREATE INDEX liquidity_intents_by_provider ON liquidity_intents (provider_party, created_at DESC);
CREATE INDEX liquidity_intents_open_by_expiry ON liquidity_intents (expires_at)
  WHERE status IN ('pending', 'partial');

-- The outbox of liquidity intents, as intent_events is of swaps.
CREATE TABLE liquidity_events (
  seq                  BIGSERIAL PRIMARY KEY,
  liquidity_intent_id  TEXT NOT NULL REFERENCES liquidity_intents (liquidity_intent_id),
  status               TEXT NOT NULL,
  at                   TIMESTAMPTZ NOT NULL,
  payload              JSONB NOT NULL DEFAULT '{}'
);
CREATE INDEX liquidity_events_by_intent ON liquidity_events (liquidity_intent_id, seq);

CREATE FUNCTION notify_liquidity_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('liquidity_events', json_build_object(
    'seq', NEW.seq, 'liquidityIntentId', NEW.liquidity_intent_id, 'status', NEW.status)::text);
  RETURN NEW;
END
$$;
CREATE TRIGGER liquidity_events_notify AFTER INSERT ON liquidity_events
  FOR EACH ROW EXECUTE FUNCTION notify_liquidity_event();

-- Every transfer that reached a pool's LP party. Where its amount is:
--   accepting   an offer the service is accepting (not yet held)
--   forwarding  held by the LP party, being forwarded to the swap party
--   forwarded   held by the swap party (in the pool's books)
--   returning   held by the LP party, being returned to its sender
--   returned    back with its sender
--   flagged     held by the LP party; an operator decides
CREATE TABLE liquidity_deposits (
  deposit_id           TEXT PRIMARY KEY,
  update_id            TEXT NOT NULL,
  event_index          INTEGER NOT NULL CHECK (event_index >= 0),
  ledger_offset        BIGINT NOT NULL,
  pool_id              TEXT NOT NULL REFERENCES pools (pool_id),
  liquidity_intent_id  TEXT REFERENCES liquidity_intents (liquidity_intent_id),
  sender               TEXT NOT NULL,
  -- NULL when the pool does not trade the instrument.
  side                 TEXT CHECK (side IN ('a', 'b')),
  instrument_id        TEXT NOT NULL,
  instrument_admin     TEXT NOT NULL,
  amount               NUMERIC(38, 10) NOT NULL CHECK (amount > 0),
  reference            TEXT,
  offer_id             TEXT,
  status               TEXT NOT NULL CHECK (status IN ('accepting', 'forwarding', 'forwarded',
                         'returning', 'returned', 'flagged')),
  unmatched_reason     TEXT,
  received_at          TIMESTAMPTZ NOT NULL,
  updated_at           TIMESTAMPTZ NOT NULL,
  UNIQUE (update_id, event_index)
);
-- An intent takes one deposit per side; a second of the same side is returned.
CREATE UNIQUE INDEX liquidity_deposits_one_per_side ON liquidity_deposits (liquidity_intent_id, side)
  WHERE liquidity_intent_id IS NOT NULL AND status IN ('accepting', 'forwarding', 'forwarded');
CREATE INDEX liquidity_deposits_by_offer ON liquidity_deposits (offer_id) WHERE offer_id IS NOT NULL;

-- Units per provider and pool, and what went in for them (reduced in proportion by each burn).
CREATE TABLE liquidity_positions (
  pool_id         TEXT NOT NULL REFERENCES pools (pool_id),
  provider_party  TEXT NOT NULL,
  units           NUMERIC(38, 10) NOT NULL CHECK (units >= 0),
  basis_a         NUMERIC(38, 10) NOT NULL CHECK (basis_a >= 0),
  basis_b         NUMERIC(38, 10) NOT NULL CHECK (basis_b >= 0),
  created_at      TIMESTAMPTZ NOT NULL,
  updated_at      TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (pool_id, provider_party)
);
CREATE INDEX liquidity_positions_by_provider ON liquidity_positions (provider_party);

-- A burn of units for two payouts. Per side, the payout's state: pending (recorded or
-- submitted), offered (the provider must accept), paid, flagged (an operator decides), none (the
-- side pays nothing).
CREATE TABLE liquidity_withdrawals (
  withdrawal_id    TEXT PRIMARY KEY,
  pool_id          TEXT NOT NULL REFERENCES pools (pool_id),
  provider_party   TEXT NOT NULL,
  api_key_id       TEXT NOT NULL REFERENCES api_keys (key_id),
  units            NUMERIC(38, 10) NOT NULL CHECK (units > 0),
  amount_a         NUMERIC(38, 10) NOT NULL CHECK (amount_a >= 0),
  amount_b         NUMERIC(38, 10) NOT NULL CHECK (amount_b >= 0),
  minimum_a        NUMERIC(38, 10) NOT NULL CHECK (minimum_a >= 0),
  minimum_b        NUMERIC(38, 10) NOT NULL CHECK (minimum_b >= 0),
  payout_a         TEXT NOT NULL CHECK (payout_a IN ('pending', 'offered', 'paid', 'flagged', 'none')),
  payout_b         TEXT NOT NULL CHECK (payout_b IN ('pending', 'offered', 'paid', 'flagged', 'none')),
  update_a         TEXT,
  update_b         TEXT,
  created_at       TIMESTAMPTZ NOT NULL,
  completed_at     TIMESTAMPTZ,
  updated_at       TIMESTAMPTZ NOT NULL,
  CHECK (amount_a >= minimum_a AND amount_b >= minimum_b)
);
CREATE INDEX liquidity_withdrawals_by_provider ON liquidity_withdrawals (provider_party, created_at DESC);

-- The legs of liquidity: accepting a deposit offer to the LP party, forwarding a deposit to the
-- swap party, returning an amount to a provider, and a withdrawal's payouts.
ALTER TABLE ledger_commands ADD COLUMN liquidity_intent_id TEXT
  REFERENCES liquidity_intents (liquidity_intent_id);
ALTER TABLE ledger_commands ADD COLUMN liquidity_deposit_id TEXT
  REFERENCES liquidity_deposits (deposit_id);
ALTER TABLE ledger_commands ADD COLUMN withdrawal_id TEXT
  REFERENCES liquidity_withdrawals (withdrawal_id);
ALTER TABLE ledger_commands DROP CONSTRAINT ledger_commands_subject_check;
ALTER TABLE ledger_commands ADD CONSTRAINT ledger_commands_subject_check CHECK (
  intent_id IS NOT NULL OR deposit_id IS NOT NULL OR collection_id IS NOT NULL
  OR liquidity_intent_id IS NOT NULL OR liquidity_deposit_id IS NOT NULL
  OR withdrawal_id IS NOT NULL);
ALTER TABLE ledger_commands DROP CONSTRAINT ledger_commands_leg_check;
ALTER TABLE ledger_commands ADD CONSTRAINT ledger_commands_leg_check CHECK (leg IN (
  'accept', 'payout', 'refund', 'reject', 'withdraw', 'collect',
  'lp_accept', 'forward', 'lp_return', 'lp_payout'));
