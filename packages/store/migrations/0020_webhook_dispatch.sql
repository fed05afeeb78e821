-- Webhook dispatch without re-scanning the backlog (docs/spec/webhooks.md#delivery).
--
-- `held` marks a delivery that waits behind an earlier open delivery of its subject to its
-- endpoint: of each such chain only the open delivery with the lowest `ord` is not held. A claim
-- then walks one index in its own order (`next_attempt_at`, `ord`) over deliveries that are not
-- held, with no per-row look at the chain; the chains are kept right where they change, when a
-- delivery is added and when one ends.
ALTER TABLE webhook_deliveries ADD COLUMN held BOOLEAN NOT NULL DEFAULT FALSE;

UPDATE webhook_deliveries d SET held = TRUE
WHERE d.state IN ('pending', 'retrying')
  AND EXISTS (SELECT 1 FROM webhook_deliveries e
    WHERE e.endpoint_id = d.endpoint_id AND e.subject_id = d.subject_id
      AND e.state IN ('pending', 'retrying') AND e.ord < d.ord);

DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_claimable ON webhook_deliveries (next_attempt_at, ord)
  WHERE state IN ('pending', 'retrying') AND NOT held;

-- Releases the first open delivery of each chain named (endpoint i, subject i) when it is held.
-- Called after a delivery was added held or one ended. Each chain is locked first, for the rest
-- of the transaction, and in one order (so two callers never wait on each other in a ring); the
-- release after it is a statement of its own, so it sees what the previous holder of the lock
-- committed. Without the lock, a fan-out adding a held delivery behind one that a worker is
-- ending would see it still open, the worker would not see the new one, and the new one would
-- wait forever. The first key ("PPWH") keeps these locks apart from the service's others.
CREATE FUNCTION release_webhook_chains(endpoint_ids TEXT[], subject_ids TEXT[])
RETURNS INTEGER LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  released INTEGER;
BEGIN
  PERFORM pg_advisory_xact_lock(1347442504, k.key)
  FROM (SELECT DISTINCT hashtext(current_schema() || ':' || c.endpoint_id || ':' || c.subject_id) AS key
        FROM unnest(endpoint_ids, subject_ids) AS c(endpoint_id, subject_id)
        ORDER BY 1) k;
  UPDATE webhook_deliveries d SET held = FALSE
  FROM (SELECT DISTINCT c.endpoint_id, c.subject_id
        FROM unnest(endpoint_ids, subject_ids) AS c(endpoint_id, subject_id)) c
  CROSS JOIN LATERAL (
    SELECT e.delivery_id, e.held FROM webhook_deliveries e
    WHERE e.endpoint_id = c.endpoint_id AND e.subject_id = c.subject_id
      AND e.state IN ('pending', 'retrying')
    ORDER BY e.ord LIMIT 1) f
  WHERE d.delivery_id = f.delivery_id AND f.held;
  GET DIAGNOSTICS released = ROW_COUNT;
  RETURN released;
END $$;

-- Records finished attempts (`[{delivery_id, owner, attempt, state, next_attempt_at, now}]`) and
-- releases the chains of those that ended, in one statement, so one round trip records a batch
-- and the release commits with the ends. A delivery no longer its owner's open lease is left
-- out; the rows answered are those recorded.
CREATE FUNCTION record_webhook_attempts(results JSONB)
RETURNS TABLE (delivery_id TEXT, endpoint_id TEXT, subject_id TEXT, state TEXT)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  ids TEXT[];
  endpoints TEXT[];
  subjects TEXT[];
  states TEXT[];
BEGIN
  WITH recorded AS (
    UPDATE webhook_deliveries d SET
      attempts = d.attempts || r.attempt, attempt_count = d.attempt_count + 1,
      first_attempt_at = COALESCE(d.first_attempt_at, r.now), state = r.state,
      next_attempt_at = r.next_attempt_at, lease_owner = NULL, lease_until = NULL,
      ended_at = CASE WHEN r.state IN ('delivered', 'failed') THEN r.now END
    FROM jsonb_to_recordset(results) AS r(delivery_id TEXT, owner TEXT, attempt JSONB,
      state TEXT, next_attempt_at TIMESTAMPTZ, now TIMESTAMPTZ)
    WHERE d.delivery_id = r.delivery_id AND d.lease_owner = r.owner
      AND d.state IN ('pending', 'retrying')
    RETURNING d.delivery_id, d.endpoint_id, d.subject_id, d.state
  )
  SELECT array_agg(x.delivery_id), array_agg(x.endpoint_id), array_agg(x.subject_id),
    array_agg(x.state)
  INTO ids, endpoints, subjects, states FROM recorded x;
  PERFORM release_webhook_chains(
    ARRAY(SELECT e FROM unnest(endpoints, states) AS u(e, s) WHERE s IN ('delivered', 'failed')),
    ARRAY(SELECT b FROM unnest(subjects, states) AS u(b, s) WHERE s IN ('delivered', 'failed')));
  RETURN QUERY SELECT * FROM unnest(ids, endpoints, subjects, states);
END $$;

-- Wakes the workers listening on `webhook_work` at commit: `events` when events were queued (a
-- fan-out is due), `deliveries` when deliveries were added or an endpoint was enabled again (a
-- claim is due). One notification per statement that added rows (a queueing statement of a
-- developer without endpoints adds none, and wakes nobody), and PostgreSQL folds repeats within
-- a transaction. Only a hint: the workers' own timer finds the same work, later.
CREATE FUNCTION notify_webhook_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Nested, so a row trigger never plans the statement's transition table.
  IF TG_LEVEL = 'STATEMENT' THEN
    IF NOT EXISTS (SELECT 1 FROM added) THEN RETURN NULL; END IF;
  END IF;
  PERFORM pg_notify('webhook_work', TG_ARGV[0]);
  RETURN NULL;
END $$;

CREATE TRIGGER webhook_events_notify AFTER INSERT ON webhook_events
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION notify_webhook_work('events');
CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION notify_webhook_work('deliveries');
CREATE TRIGGER webhook_endpoints_enabled_notify AFTER UPDATE OF enabled ON webhook_endpoints
  FOR EACH ROW WHEN (NEW.enabled AND NOT OLD.enabled)
  EXECUTE FUNCTION notify_webhook_work('deliveries');
