-- An intent's state changes only along its kind's lifecycle (docs/spec/lifecycle.md#transitions,
-- docs/spec/liquidity.md#intents). The store checks every step of a state write against core's
-- table before it sends a statement; this is the same rule held by the database, so no statement
-- whatever its origin (a new query, an operator's SQL) can move an intent backwards or out of a
-- terminal state.
--
-- One write may take several steps at once (a one-step deposit goes `pending` → `matched` →
-- `deposit_received`; the executor `deposit_received` → … → `sending_output`), so the check holds
-- every pair of states that a path of listed edges connects: core's `reachablePairs`, which a test
-- compares with these rows. A lifecycle that changes adds a migration that changes them.
CREATE TABLE intent_state_moves (
  kind        TEXT NOT NULL CHECK (kind IN ('swap', 'liquidity')),
  from_status TEXT NOT NULL,
  to_status   TEXT NOT NULL,
  PRIMARY KEY (kind, from_status, to_status)
);

INSERT INTO intent_state_moves (kind, from_status, to_status)
SELECT m.kind, m.from_status, unnest(m.to_states)
FROM (VALUES
  ('swap', 'pending', ARRAY['cancelled', 'completed', 'deposit_received', 'expired', 'failed',
    'forwarded', 'insufficient_amount', 'insufficient_liquidity', 'matched', 'no_output_holdings',
    'output_failed', 'price_impact_exceeded', 'processing', 'refund_failed', 'sending_output',
    'slippage_failed']),
  ('swap', 'matched', ARRAY['completed', 'deposit_received', 'failed', 'forwarded',
    'insufficient_amount', 'insufficient_liquidity', 'no_output_holdings', 'output_failed',
    'price_impact_exceeded', 'processing', 'refund_failed', 'sending_output', 'slippage_failed']),
  ('swap', 'deposit_received', ARRAY['completed', 'failed', 'forwarded', 'insufficient_amount',
    'insufficient_liquidity', 'no_output_holdings', 'output_failed', 'price_impact_exceeded',
    'processing', 'refund_failed', 'sending_output', 'slippage_failed']),
  ('swap', 'forwarded', ARRAY['completed', 'failed', 'insufficient_amount',
    'insufficient_liquidity', 'no_output_holdings', 'output_failed', 'price_impact_exceeded',
    'processing', 'refund_failed', 'sending_output', 'slippage_failed']),
  ('swap', 'processing', ARRAY['completed', 'failed', 'insufficient_amount',
    'insufficient_liquidity', 'no_output_holdings', 'output_failed', 'price_impact_exceeded',
    'refund_failed', 'sending_output', 'slippage_failed']),
  ('swap', 'sending_output', ARRAY['completed', 'output_failed', 'refund_failed']),
  ('liquidity', 'pending', ARRAY['cancelled', 'completed', 'expired', 'joining', 'partial',
    'refund_failed', 'refunded', 'refunding']),
  ('liquidity', 'partial', ARRAY['completed', 'joining', 'refund_failed', 'refunded',
    'refunding']),
  ('liquidity', 'joining', ARRAY['completed', 'refund_failed', 'refunded', 'refunding']),
  ('liquidity', 'refunding', ARRAY['refund_failed', 'refunded'])
) AS m(kind, from_status, to_states);

-- Refuses a change of `status` that no listed path connects, as a check violation naming the
-- table of moves (SQLSTATE 23514), so a bug is an error where it is written, never a state kept.
CREATE FUNCTION refuse_unlisted_intent_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM intent_state_moves
                 WHERE kind = TG_ARGV[0] AND from_status = OLD.status
                   AND to_status = NEW.status) THEN
    RAISE EXCEPTION 'illegal % intent move % -> %', TG_ARGV[0], OLD.status, NEW.status
      USING ERRCODE = 'check_violation', CONSTRAINT = 'intent_state_moves';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER intents_state_moves BEFORE UPDATE OF status ON intents
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION refuse_unlisted_intent_move('swap');

CREATE TRIGGER liquidity_intents_state_moves BEFORE UPDATE OF status ON liquidity_intents
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION refuse_unlisted_intent_move('liquidity');
