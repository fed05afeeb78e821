-- PoolParty store, first schema. Plain SQL that runs unchanged on PostgreSQL and PGlite.
--
-- Conventions:
-- * Amounts are NUMERIC(38,10) (Daml Numeric 10: 28 integer + 10 fractional digits), never floats.
-- * Every time is TIMESTAMPTZ and is written by the service from its own clock (which may be the
--   devnet ledger's clock): business decisions never read now() in SQL.
-- * Invariants the money paths rely on are CHECK constraints, so a bug fails loudly instead of
--   writing an impossible row.

-- Developers and their access ------------------------------------------------------------------

CREATE TABLE developers (
  party_id    TEXT PRIMARY KEY,
  created_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE api_keys (
  key_id          TEXT PRIMARY KEY,
  developer_party TEXT NOT NULL REFERENCES developers (party_id),
  name            TEXT NOT NULL DEFAULT '',
  -- Only the SHA-256 of the key (lowercase hex) and its first characters for display are kept.
  key_hash        TEXT NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  prefix          TEXT NOT NULL CHECK (char_length(prefix) <= 12),
  environment     TEXT NOT NULL CHECK (environment IN ('devnet', 'mainnet')),
  created_at      TIMESTAMPTZ NOT NULL,
  last_used_at    TIMESTAMPTZ,
  revoked_at      TIMESTAMPTZ,
  -- End of the grace period after a rotation: the key works until then, and not after.
  revokes_at      TIMESTAMPTZ,
  replaced_by     TEXT REFERENCES api_keys (key_id),
  request_count   BIGINT NOT NULL DEFAULT 0 CHECK (request_count >= 0),
  -- Per-key rate limits; NULL means the service default.
  reads_per_min   INTEGER CHECK (reads_per_min > 0),
  swaps_per_min   INTEGER CHECK (swaps_per_min > 0)
);
CREATE INDEX api_keys_by_developer ON api_keys (developer_party, created_at);

CREATE TABLE sessions (
  token_hash      TEXT PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  developer_party TEXT NOT NULL REFERENCES developers (party_id),
  created_at      TIMESTAMPTZ NOT NULL,
  expires_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);

CREATE TABLE nonces (
  nonce       TEXT PRIMARY KEY,
  party_id    TEXT NOT NULL,
  purpose     TEXT NOT NULL,
  message     TEXT NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL,
  expires_at  TIMESTAMPTZ NOT NULL,
  used_at     TIMESTAMPTZ
);
CREATE INDEX nonces_by_expiry ON nonces (expires_at);

CREATE TABLE wallet_token_revocations (
  jti         TEXT PRIMARY KEY,
  revoked_at  TIMESTAMPTZ NOT NULL,
  -- The token's own expiry: after it the row is useless and may be purged.
  expires_at  TIMESTAMPTZ NOT NULL
);

-- Pools ------------------------------------------------------------------------------------------

CREATE TABLE pools (
  pool_id           TEXT PRIMARY KEY,
  token_a_id        TEXT NOT NULL,
  token_a_admin     TEXT NOT NULL,
  token_b_id        TEXT NOT NULL,
  token_b_admin     TEXT NOT NULL,
  swap_party        TEXT NOT NULL,
  lp_party          TEXT NOT NULL,
  fee_bps           INTEGER NOT NULL DEFAULT 30 CHECK (fee_bps >= 0 AND fee_bps < 10000),
  lp_supply         NUMERIC(38, 10) NOT NULL DEFAULT 0 CHECK (lp_supply >= 0),
  status            TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
  -- Per-pool overrides of the settlement-safety thresholds; {} means the service defaults.
  guard             JSONB NOT NULL DEFAULT '{}',
  -- NULL means the service-wide price-impact cap.
  price_impact_cap  NUMERIC(12, 10) CHECK (price_impact_cap > 0 AND price_impact_cap <= 1),
  created_at        TIMESTAMPTZ NOT NULL,
  updated_at        TIMESTAMPTZ NOT NULL,
  CHECK (NOT (token_a_id = token_b_id AND token_a_admin = token_b_admin))
);

-- The store's side of the effective reserves (docs/spec/amounts-and-fees.md#effective-reserves). Per side (a, b) of a pool, the swap party's ledger holdings are
-- expected to equal reserve + inflight + outgoing + fees:
--   reserve   effective reserve: the liquidity that prices swaps (LP fees included)
--   inflight  deposits in custody for swaps not yet executed
--   outgoing  payouts and refunds owed or submitted but not yet committed
--   fees      collected platform and network fees not yet swept
-- `version` increases with every change so an executor can detect a concurrent writer.
CREATE TABLE pool_accounting (
  pool_id     TEXT PRIMARY KEY REFERENCES pools (pool_id),
  reserve_a   NUMERIC(38, 10) NOT NULL DEFAULT 0 CHECK (reserve_a >= 0),
  reserve_b   NUMERIC(38, 10) NOT NULL DEFAULT 0 CHECK (reserve_b >= 0),
  inflight_a  NUMERIC(38, 10) NOT NULL DEFAULT 0 CHECK (inflight_a >= 0),
  inflight_b  NUMERIC(38, 10) NOT NULL DEFAULT 0 CHECK (inflight_b >= 0),
  outgoing_a  NUMERIC(38, 10) NOT NULL DEFAULT 0 CHECK (outgoing_a >= 0),
  outgoing_b  NUMERIC(38, 10) NOT NULL DEFAULT 0 CHECK (outgoing_b >= 0),
  fees_a      NUMERIC(38, 10) NOT NULL DEFAULT 0 CHECK (fees_a >= 0),
  fees_b      NUMERIC(38, 10) NOT NULL DEFAULT 0 CHECK (fees_b >= 0),
  version     BIGINT NOT NULL DEFAULT 0,
  updated_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE discount_policies (
  id                   BIGSERIAL PRIMARY KEY,
  target_type          TEXT NOT NULL CHECK (target_type IN ('api_key', 'wallet_party', 'pool')),
  target_id            TEXT NOT NULL CHECK (target_id <> ''),
  network_charge_bps   INTEGER CHECK (network_charge_bps BETWEEN 0 AND 10000),
  platform_charge_bps  INTEGER CHECK (platform_charge_bps BETWEEN 0 AND 10000),
  valid_from           TIMESTAMPTZ,
  valid_until          TIMESTAMPTZ,
  created_at           TIMESTAMPTZ NOT NULL,
  CHECK (network_charge_bps IS NOT NULL OR platform_charge_bps IS NOT NULL),
  CHECK (valid_from IS NULL OR valid_until IS NULL OR valid_from < valid_until)
);
CREATE INDEX discount_policies_by_target ON discount_policies (target_type, target_id);

-- Intents ----------------------------------------------------------------------------------------

CREATE TABLE intents (
  intent_id                    TEXT PRIMARY KEY,
  pool_id                      TEXT NOT NULL REFERENCES pools (pool_id),
  api_key_id                   TEXT NOT NULL REFERENCES api_keys (key_id),
  -- Fixed at creation so a developer keeps seeing the intents of a key they have rotated.
  developer_party              TEXT NOT NULL,
  wallet_party                 TEXT NOT NULL,
  deposit_address              TEXT NOT NULL,
  deposit_reference            TEXT NOT NULL UNIQUE CHECK (char_length(deposit_reference) <= 32),
  input_token                  TEXT NOT NULL,
  input_token_admin            TEXT NOT NULL,
  output_token                 TEXT NOT NULL,
  output_token_admin           TEXT NOT NULL,
  expected_amount              NUMERIC(38, 10) NOT NULL CHECK (expected_amount > 0),
  quoted_swap_amount           NUMERIC(38, 10) NOT NULL CHECK (quoted_swap_amount > 0),
  network_fee_amount           NUMERIC(38, 10) NOT NULL CHECK (network_fee_amount >= 0),
  pool_fee_amount              NUMERIC(38, 10) NOT NULL CHECK (pool_fee_amount >= 0),
  lp_fee_amount                NUMERIC(38, 10) NOT NULL CHECK (lp_fee_amount >= 0),
  platform_fee_amount          NUMERIC(38, 10) NOT NULL CHECK (platform_fee_amount >= 0),
  input_amount_after_pool_fee  NUMERIC(38, 10) NOT NULL CHECK (input_amount_after_pool_fee > 0),
  expected_output              NUMERIC(38, 10) NOT NULL CHECK (expected_output > 0),
  min_output                   NUMERIC(38, 10) NOT NULL CHECK (min_output >= 0),
  slippage_tolerance           NUMERIC NOT NULL CHECK (slippage_tolerance > 0 AND slippage_tolerance < 1),
  -- The applied discount policies as quoted (the quote's discount objects, docs/spec/amounts-and-fees.md#discounts); NULL when none applied.
  network_fee_policy           JSONB,
  platform_fee_policy          JSONB,
  output_address               TEXT NOT NULL,
  status                       TEXT NOT NULL CHECK (status IN (
                                 'pending', 'matched', 'deposit_received', 'forwarded',
                                 'processing', 'sending_output', 'completed', 'slippage_failed',
                                 'price_impact_exceeded', 'insufficient_amount',
                                 'insufficient_liquidity', 'output_failed', 'no_output_holdings',
                                 'failed', 'refund_failed', 'expired', 'cancelled')),
  failure_code                 TEXT,
  failure_message              TEXT,
  -- Facts of each stage, NULL until the stage happened.
  deposit_amount               NUMERIC(38, 10),
  deposit_update_id            TEXT,
  deposit_received_at          TIMESTAMPTZ,
  actual_output                NUMERIC(38, 10),
  payout_update_id             TEXT,
  refund_amount                NUMERIC(38, 10),
  refund_network_fee_amount    NUMERIC(38, 10),
  refund_update_id             TEXT,
  created_at                   TIMESTAMPTZ NOT NULL,
  matched_at                   TIMESTAMPTZ,
  completed_at                 TIMESTAMPTZ,
  expires_at                   TIMESTAMPTZ NOT NULL,
  updated_at                   TIMESTAMPTZ NOT NULL,
  -- Conservation (docs/spec/amounts-and-fees.md#fee-calculation): every unit of the deposit is a fee or is priced into the pool.
  CHECK (expected_amount = network_fee_amount + pool_fee_amount + input_amount_after_pool_fee),
  CHECK (pool_fee_amount = lp_fee_amount + platform_fee_amount),
  CHECK (min_output <= expected_output),
  CHECK (expires_at > created_at)
);

-- The active-intent guard (docs/spec/lifecycle.md#active-intent-guard): at most one pending intent per party, pool and input
-- instrument. Attribution by sender relies on it as much as retries do.
CREATE UNIQUE INDEX intents_one_pending
  ON intents (wallet_party, pool_id, input_token, input_token_admin)
  WHERE status = 'pending';
CREATE INDEX intents_by_party ON intents (wallet_party, created_at DESC, intent_id DESC);
CREATE INDEX intents_pending_by_expiry ON intents (expires_at) WHERE status = 'pending';
CREATE INDEX intents_by_pool_status ON intents (pool_id, status);

-- The outbox: one row per state change, written in the transaction that changed the state.
-- Publishers read it in `seq` order; NOTIFY only wakes them up.
CREATE TABLE intent_events (
  seq        BIGSERIAL PRIMARY KEY,
  intent_id  TEXT NOT NULL REFERENCES intents (intent_id),
  status     TEXT NOT NULL,
  at         TIMESTAMPTZ NOT NULL,
  payload    JSONB NOT NULL DEFAULT '{}'
);
CREATE INDEX intent_events_by_intent ON intent_events (intent_id, seq);

CREATE FUNCTION notify_intent_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('intent_events', json_build_object(
    'seq', NEW.seq, 'intentId', NEW.intent_id, 'status', NEW.status)::text);
  RETURN NEW;
END
$$;
CREATE TRIGGER intent_events_notify AFTER INSERT ON intent_events
  FOR EACH ROW EXECUTE FUNCTION notify_intent_event();

CREATE TABLE idempotency_records (
  api_key_id       TEXT NOT NULL,
  key              TEXT NOT NULL,
  request_hash     TEXT NOT NULL,
  response_status  INTEGER NOT NULL,
  response_body    JSONB NOT NULL,
  created_at       TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (api_key_id, key)
);
CREATE INDEX idempotency_records_by_age ON idempotency_records (created_at);

-- Settlement -------------------------------------------------------------------------------------

-- Where each ingester resumes; written in the same transaction as what it ingested.
CREATE TABLE ledger_offsets (
  stream       TEXT PRIMARY KEY,
  last_offset  BIGINT NOT NULL CHECK (last_offset >= 0),
  updated_at   TIMESTAMPTZ NOT NULL
);

-- Every transfer that reached a pool swap party: none is ever kept without a row
-- (docs/spec/lifecycle.md#deposit-attribution).
CREATE TABLE deposits (
  deposit_id        TEXT PRIMARY KEY,
  update_id         TEXT NOT NULL,
  event_index       INTEGER NOT NULL CHECK (event_index >= 0),
  ledger_offset     BIGINT NOT NULL,
  pool_id           TEXT NOT NULL REFERENCES pools (pool_id),
  sender            TEXT NOT NULL,
  receiver          TEXT NOT NULL,
  instrument_id     TEXT NOT NULL,
  instrument_admin  TEXT NOT NULL,
  amount            NUMERIC(38, 10) NOT NULL CHECK (amount > 0),
  reference         TEXT,
  -- Set for a two-step transfer: the offer the service must accept or reject.
  offer_id          TEXT,
  intent_id         TEXT REFERENCES intents (intent_id),
  status            TEXT NOT NULL CHECK (status IN ('attributed', 'unmatched', 'returned', 'flagged')),
  unmatched_reason  TEXT,
  received_at       TIMESTAMPTZ NOT NULL,
  updated_at        TIMESTAMPTZ NOT NULL,
  UNIQUE (update_id, event_index),
  CHECK (status <> 'attributed' OR intent_id IS NOT NULL),
  CHECK (status <> 'unmatched' OR intent_id IS NULL)
);
-- At most one deposit is ever attributed to an intent.
CREATE UNIQUE INDEX deposits_one_per_intent ON deposits (intent_id) WHERE intent_id IS NOT NULL;
CREATE INDEX deposits_by_status ON deposits (status, received_at);

-- Commands are recorded before submission (docs/spec/lifecycle.md#exactly-once); the id is deterministic so the ledger
-- deduplicates a resubmission after a crash.
CREATE TABLE ledger_commands (
  command_id  TEXT PRIMARY KEY,
  intent_id   TEXT REFERENCES intents (intent_id),
  deposit_id  TEXT REFERENCES deposits (deposit_id),
  leg         TEXT NOT NULL CHECK (leg IN ('accept', 'payout', 'refund', 'reject')),
  attempt     INTEGER NOT NULL CHECK (attempt >= 0),
  status      TEXT NOT NULL CHECK (status IN ('recorded', 'submitted', 'committed', 'failed')),
  payload     JSONB NOT NULL DEFAULT '{}',
  update_id   TEXT,
  error       TEXT,
  created_at  TIMESTAMPTZ NOT NULL,
  updated_at  TIMESTAMPTZ NOT NULL,
  CHECK (intent_id IS NOT NULL OR deposit_id IS NOT NULL),
  CHECK (status <> 'committed' OR update_id IS NOT NULL)
);
CREATE INDEX ledger_commands_unconfirmed ON ledger_commands (created_at)
  WHERE status IN ('recorded', 'submitted');
CREATE INDEX ledger_commands_by_intent ON ledger_commands (intent_id);

-- One row per executed swap; the source of stats, earnings and the velocity guard.
CREATE TABLE fee_events (
  id                   BIGSERIAL PRIMARY KEY,
  pool_id              TEXT NOT NULL REFERENCES pools (pool_id),
  intent_id            TEXT NOT NULL UNIQUE REFERENCES intents (intent_id),
  api_key_id           TEXT NOT NULL,
  input_side           TEXT NOT NULL CHECK (input_side IN ('a', 'b')),
  input_amount         NUMERIC(38, 10) NOT NULL CHECK (input_amount > 0),
  output_amount        NUMERIC(38, 10) NOT NULL CHECK (output_amount >= 0),
  lp_fee_amount        NUMERIC(38, 10) NOT NULL CHECK (lp_fee_amount >= 0),
  platform_fee_amount  NUMERIC(38, 10) NOT NULL CHECK (platform_fee_amount >= 0),
  network_fee_amount   NUMERIC(38, 10) NOT NULL CHECK (network_fee_amount >= 0),
  -- The developer's share of the platform fee, in the input token.
  developer_earnings   NUMERIC(38, 10) NOT NULL CHECK (developer_earnings >= 0),
  -- USD values at execution; NULL where the pool has no USD-priced side.
  volume_usd           NUMERIC(38, 10),
  fees_usd             NUMERIC(38, 10),
  lp_fees_usd          NUMERIC(38, 10),
  at                   TIMESTAMPTZ NOT NULL
);
CREATE INDEX fee_events_by_pool_time ON fee_events (pool_id, at);
CREATE INDEX fee_events_by_key ON fee_events (api_key_id, at);

CREATE TABLE pool_snapshots (
  pool_id    TEXT NOT NULL REFERENCES pools (pool_id),
  hour       TIMESTAMPTZ NOT NULL,
  reserve_a  NUMERIC(38, 10) NOT NULL,
  reserve_b  NUMERIC(38, 10) NOT NULL,
  price_usd  NUMERIC(38, 10),
  PRIMARY KEY (pool_id, hour)
);

CREATE TABLE reconciliation_runs (
  id       BIGSERIAL PRIMARY KEY,
  pool_id  TEXT NOT NULL REFERENCES pools (pool_id),
  ok       BOOLEAN NOT NULL,
  details  JSONB NOT NULL DEFAULT '{}',
  at       TIMESTAMPTZ NOT NULL
);
CREATE INDEX reconciliation_runs_latest ON reconciliation_runs (pool_id, at DESC, id DESC);

-- Situations only a person can resolve, e.g. a refund that could not be committed.
CREATE TABLE operator_flags (
  id           BIGSERIAL PRIMARY KEY,
  intent_id    TEXT REFERENCES intents (intent_id),
  deposit_id   TEXT REFERENCES deposits (deposit_id),
  kind         TEXT NOT NULL,
  details      JSONB NOT NULL DEFAULT '{}',
  created_at   TIMESTAMPTZ NOT NULL,
  resolved_at  TIMESTAMPTZ,
  resolution   TEXT
);
CREATE INDEX operator_flags_open ON operator_flags (created_at) WHERE resolved_at IS NULL;
