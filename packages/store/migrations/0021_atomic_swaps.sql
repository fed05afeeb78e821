-- Atomic swaps (docs/spec/atomic-swaps.md): both legs of a trade in one prepared transaction the
-- trader signs. A row holds what was prepared (the signed amounts, the quote's fee breakdown, the
-- prepared transaction, its hash and hashing scheme), the signature that was accepted, and what
-- the execution did (its update id, the curve's output at execution and the excess kept in the
-- pool's reserve).
CREATE TABLE atomic_swaps (
  atomic_swap_id               TEXT PRIMARY KEY,
  pool_id                      TEXT NOT NULL REFERENCES pools (pool_id),
  api_key_id                   TEXT NOT NULL REFERENCES api_keys (key_id),
  -- Fixed at creation so a developer keeps seeing the swaps of a key they have rotated.
  developer_party              TEXT NOT NULL,
  trader_party                 TEXT NOT NULL,
  -- The fingerprint of the trader's signing key the swap was asked for: a signature by another
  -- key of the trader is refused.
  key_fingerprint              TEXT NOT NULL,
  input_token                  TEXT NOT NULL,
  input_token_admin            TEXT NOT NULL,
  output_token                 TEXT NOT NULL,
  output_token_admin           TEXT NOT NULL,
  -- The signed amounts: the input leg moves exactly input_amount, the output leg exactly
  -- output_amount (the quote's output less the slippage tolerance).
  input_amount                 NUMERIC(38, 10) NOT NULL CHECK (input_amount > 0),
  output_amount                NUMERIC(38, 10) NOT NULL CHECK (output_amount > 0),
  quoted_output                NUMERIC(38, 10) NOT NULL CHECK (quoted_output > 0),
  slippage_tolerance           NUMERIC NOT NULL CHECK (slippage_tolerance > 0 AND slippage_tolerance < 1),
  -- The quote's fee breakdown, fixed at prepare (docs/spec/amounts-and-fees.md).
  network_fee_amount           NUMERIC(38, 10) NOT NULL CHECK (network_fee_amount >= 0),
  pool_fee_amount              NUMERIC(38, 10) NOT NULL CHECK (pool_fee_amount >= 0),
  lp_fee_amount                NUMERIC(38, 10) NOT NULL CHECK (lp_fee_amount >= 0),
  platform_fee_amount          NUMERIC(38, 10) NOT NULL CHECK (platform_fee_amount >= 0),
  input_amount_after_pool_fee  NUMERIC(38, 10) NOT NULL CHECK (input_amount_after_pool_fee > 0),
  network_fee_policy           JSONB,
  platform_fee_policy          JSONB,
  -- The current preparation (a spent input prepares the swap again, under a new command id).
  command_id                   TEXT NOT NULL UNIQUE,
  preparations                 INTEGER NOT NULL DEFAULT 1 CHECK (preparations >= 1),
  input_holding_ids            JSONB NOT NULL DEFAULT '[]',
  output_holding_ids           JSONB NOT NULL DEFAULT '[]',
  prepared_transaction         TEXT NOT NULL,
  prepared_transaction_hash    TEXT NOT NULL,
  hashing_scheme_version       TEXT NOT NULL,
  status                       TEXT NOT NULL CHECK (status IN (
                                 'prepared', 'executing', 'completed', 'price_moved', 'rejected',
                                 'expired', 'cancelled')),
  failure_code                 TEXT,
  failure_message              TEXT,
  -- The accepted signature (base64) and its key, kept so that a restart can finish executing
  -- the same command id, which the ledger deduplicates.
  trader_signature             TEXT,
  trader_public_key            TEXT,
  signed_at                    TIMESTAMPTZ,
  update_id                    TEXT,
  curve_output                 NUMERIC(38, 10),
  excess                       NUMERIC(38, 10) CHECK (excess >= 0),
  created_at                   TIMESTAMPTZ NOT NULL,
  expires_at                   TIMESTAMPTZ NOT NULL,
  updated_at                   TIMESTAMPTZ NOT NULL,
  completed_at                 TIMESTAMPTZ,
  -- Conservation: every unit of the signed input is a fee or is priced into the pool.
  CHECK (input_amount = network_fee_amount + pool_fee_amount + input_amount_after_pool_fee),
  CHECK (pool_fee_amount = lp_fee_amount + platform_fee_amount),
  CHECK (output_amount <= quoted_output),
  CHECK (expires_at > created_at),
  CHECK (status <> 'completed' OR (update_id IS NOT NULL AND excess IS NOT NULL)),
  CHECK (status <> 'executing' OR trader_signature IS NOT NULL)
);
CREATE INDEX atomic_swaps_by_trader ON atomic_swaps (trader_party, created_at DESC);
CREATE INDEX atomic_swaps_by_developer ON atomic_swaps (developer_party, created_at DESC);
-- The expiry sweep's and the restart's reads: swaps not yet ended.
CREATE INDEX atomic_swaps_live_by_expiry ON atomic_swaps (expires_at)
  WHERE status IN ('prepared', 'executing');

-- The outbox of atomic swaps, as intent_events is of swaps.
CREATE TABLE atomic_swap_events (
  seq             BIGSERIAL PRIMARY KEY,
  atomic_swap_id  TEXT NOT NULL REFERENCES atomic_swaps (atomic_swap_id),
  status          TEXT NOT NULL,
  at              TIMESTAMPTZ NOT NULL,
  payload         JSONB NOT NULL DEFAULT '{}'
);
CREATE INDEX atomic_swap_events_by_swap ON atomic_swap_events (atomic_swap_id, seq);

CREATE FUNCTION notify_atomic_swap_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('atomic_swap_events', json_build_object(
    'seq', NEW.seq, 'atomicSwapId', NEW.atomic_swap_id, 'status', NEW.status)::text);
  RETURN NEW;
END
$$;
CREATE TRIGGER atomic_swap_events_notify AFTER INSERT ON atomic_swap_events
  FOR EACH ROW EXECUTE FUNCTION notify_atomic_swap_event();

-- The pool's holdings a live swap's output leg names. The primary key is the rule: a holding is
-- named by at most one live swap, so two prepared transactions never spend the same holding. A
-- row lives while its swap is `prepared` or `executing`; the trigger below deletes it the moment
-- the swap ends, whichever statement ends it (the expiry sweep at `expiresAt` included).
CREATE TABLE atomic_swap_reservations (
  holding_id      TEXT PRIMARY KEY,
  atomic_swap_id  TEXT NOT NULL REFERENCES atomic_swaps (atomic_swap_id),
  pool_id         TEXT NOT NULL REFERENCES pools (pool_id),
  reserved_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX atomic_swap_reservations_by_swap ON atomic_swap_reservations (atomic_swap_id);
CREATE INDEX atomic_swap_reservations_by_pool ON atomic_swap_reservations (pool_id);

CREATE FUNCTION release_atomic_swap_reservations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM atomic_swap_reservations WHERE atomic_swap_id = NEW.atomic_swap_id;
  RETURN NEW;
END $$;
CREATE TRIGGER atomic_swaps_release_reservations AFTER UPDATE OF status ON atomic_swaps
  FOR EACH ROW WHEN (NEW.status NOT IN ('prepared', 'executing'))
  EXECUTE FUNCTION release_atomic_swap_reservations();

-- An atomic swap's state changes only along core's ATOMIC_SWAP_LIFECYCLE, as intents' do
-- (migration 0016): every pair of states a path of its edges connects.
ALTER TABLE intent_state_moves DROP CONSTRAINT intent_state_moves_kind_check;
ALTER TABLE intent_state_moves ADD CONSTRAINT intent_state_moves_kind_check
  CHECK (kind IN ('swap', 'liquidity', 'atomic_swap'));

INSERT INTO intent_state_moves (kind, from_status, to_status)
SELECT 'atomic_swap', m.from_status, unnest(m.to_states)
FROM (VALUES
  ('prepared', ARRAY['cancelled', 'completed', 'executing', 'expired', 'prepared', 'price_moved',
    'rejected']),
  ('executing', ARRAY['cancelled', 'completed', 'executing', 'expired', 'prepared', 'price_moved',
    'rejected'])
) AS m(from_status, to_states);

CREATE TRIGGER atomic_swaps_state_moves BEFORE UPDATE OF status ON atomic_swaps
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION refuse_unlisted_intent_move('atomic_swap');
