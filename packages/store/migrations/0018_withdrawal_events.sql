-- The outbox of withdrawals (docs/spec/liquidity.md#withdrawals), as liquidity_events is of
-- liquidity intents: one row for every change of a withdrawal's status or of one of its payouts,
-- which the withdrawal's event stream serves (`GET /v1/liquidity/withdrawals/{id}/events`).
--
-- The rows are written by a trigger of the statement that moves the withdrawal, so every writer
-- (the burn, the payout confirmations, an operator sending a flagged payout again) has its event
-- and none is written for a change that rolled back. The withdrawal's row stays locked until the
-- transaction commits, so within one withdrawal `seq` is commit order and resuming after an event
-- is exact.
CREATE TABLE withdrawal_events (
  seq            BIGSERIAL PRIMARY KEY,
  withdrawal_id  TEXT NOT NULL REFERENCES liquidity_withdrawals (withdrawal_id),
  -- The withdrawal's status after the change, as its view derives it.
  status         TEXT NOT NULL CHECK (status IN ('paying', 'completed', 'flagged')),
  -- NULL for a change of status; else a payout that moved while the status stood:
  -- payout_pending (sent again), payout_offered, payout_paid, payout_flagged.
  leg_event      TEXT CHECK (leg_event IN ('payout_pending', 'payout_offered', 'payout_paid',
                   'payout_flagged')),
  -- The side whose payout moved; NULL for the burn, which sets both.
  side           TEXT CHECK (side IN ('a', 'b')),
  -- Both payouts' states after the change: what the withdrawal was as of this event.
  payout_a       TEXT NOT NULL,
  payout_b       TEXT NOT NULL,
  at             TIMESTAMPTZ NOT NULL
);
CREATE INDEX withdrawal_events_by_withdrawal ON withdrawal_events (withdrawal_id, seq);

-- The side whose payout moved in an update, for a statement that moves one side (every writer's).
CREATE FUNCTION withdrawal_moved_side(old_a TEXT, new_a TEXT, old_b TEXT, new_b TEXT)
RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN old_a IS DISTINCT FROM new_a THEN 'a'
              WHEN old_b IS DISTINCT FROM new_b THEN 'b' END
$$;

CREATE FUNCTION record_withdrawal_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  next_status TEXT := withdrawal_webhook_status(NEW.payout_a, NEW.payout_b, NEW.completed_at);
  moved TEXT;
  moved_to TEXT;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO withdrawal_events (withdrawal_id, status, payout_a, payout_b, at)
    VALUES (NEW.withdrawal_id, next_status, NEW.payout_a, NEW.payout_b, NEW.updated_at);
    RETURN NULL;
  END IF;
  moved := withdrawal_moved_side(OLD.payout_a, NEW.payout_a, OLD.payout_b, NEW.payout_b);
  moved_to := CASE WHEN moved = 'a' THEN NEW.payout_a WHEN moved = 'b' THEN NEW.payout_b END;
  IF withdrawal_webhook_status(OLD.payout_a, OLD.payout_b, OLD.completed_at) <> next_status THEN
    INSERT INTO withdrawal_events (withdrawal_id, status, side, payout_a, payout_b, at)
    VALUES (NEW.withdrawal_id, next_status, moved, NEW.payout_a, NEW.payout_b, NEW.updated_at);
  ELSIF moved_to IN ('pending', 'offered', 'paid', 'flagged') THEN
    INSERT INTO withdrawal_events (withdrawal_id, status, leg_event, side, payout_a, payout_b, at)
    VALUES (NEW.withdrawal_id, next_status, 'payout_' || moved_to, moved, NEW.payout_a,
      NEW.payout_b, NEW.updated_at);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER liquidity_withdrawals_events AFTER INSERT OR UPDATE ON liquidity_withdrawals
  FOR EACH ROW EXECUTE FUNCTION record_withdrawal_event();

CREATE FUNCTION notify_withdrawal_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('withdrawal_events', json_build_object(
    'seq', NEW.seq, 'withdrawalId', NEW.withdrawal_id, 'status', NEW.status)::text);
  RETURN NEW;
END
$$;
CREATE TRIGGER withdrawal_events_notify AFTER INSERT ON withdrawal_events
  FOR EACH ROW EXECUTE FUNCTION notify_withdrawal_event();

-- Withdrawals recorded before this outbox start from their state now.
INSERT INTO withdrawal_events (withdrawal_id, status, payout_a, payout_b, at)
SELECT withdrawal_id, withdrawal_webhook_status(payout_a, payout_b, completed_at), payout_a,
  payout_b, updated_at
FROM liquidity_withdrawals ORDER BY created_at, withdrawal_id;
