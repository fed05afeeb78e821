-- Deliveries leased where they become sendable (docs/spec/webhooks.md#delivery): by the fan-out
-- that adds them and by the record round that releases them, each within the slots its worker
-- has free, so most deliveries are never looked for by a claim. A claim is one more UPDATE of
-- the row and a walk of the claimable index per round; what a worker cannot take at once stays
-- unleased for the claims, as before.

-- Records finished attempts as `record_webhook_attempts` does (migration 0020), then releases
-- the chains of those that ended and leases the released deliveries to `owner` until
-- `lease_until`: at most `per_endpoint ->> endpoint` of an endpoint (none of one not named) and
-- `total` in all, oldest first, of enabled endpoints only. Answers the rows recorded (`leased`
-- false, only the first four columns set) and the rows leased (`leased` true, every column), and
-- how many were released without a lease (`leased` null, `attempt_count` the count): those wait
-- for a claim.
CREATE FUNCTION record_webhook_attempts_leasing(results JSONB, owner TEXT,
  lease_until TIMESTAMPTZ, now TIMESTAMPTZ, total INTEGER, per_endpoint JSONB)
RETURNS TABLE (leased BOOLEAN, delivery_id TEXT, endpoint_id TEXT, subject_id TEXT, state TEXT,
  event_id TEXT, event_type TEXT, body TEXT, attempts JSONB, attempt_count INTEGER,
  first_attempt_at TIMESTAMPTZ, next_attempt_at TIMESTAMPTZ, created_at TIMESTAMPTZ,
  endpoint JSONB)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  ids TEXT[];
  endpoints TEXT[];
  subjects TEXT[];
  states TEXT[];
  ended_endpoints TEXT[];
  ended_subjects TEXT[];
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
  RETURN QUERY SELECT FALSE, u.a, u.b, u.c, u.d, NULL::text, NULL::text, NULL::text, NULL::jsonb, NULL::int,
    NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, NULL::jsonb
    FROM unnest(ids, endpoints, subjects, states) AS u(a, b, c, d);
  ended_endpoints := ARRAY(SELECT e FROM unnest(endpoints, states) AS u(e, s)
    WHERE s IN ('delivered', 'failed'));
  ended_subjects := ARRAY(SELECT b FROM unnest(subjects, states) AS u(b, s)
    WHERE s IN ('delivered', 'failed'));
  IF cardinality(ended_endpoints) = 0 THEN RETURN; END IF;
  -- The chains' locks, as `release_webhook_chains` takes them, before the statement that reads
  -- them: it then sees what the previous holder of a lock committed.
  PERFORM pg_advisory_xact_lock(1347442504, k.key)
  FROM (SELECT DISTINCT hashtext(current_schema() || ':' || c.e || ':' || c.s) AS key
        FROM unnest(ended_endpoints, ended_subjects) AS c(e, s) ORDER BY 1) k;
  RETURN QUERY WITH firsts AS (
    SELECT f.delivery_id, f.endpoint_id, f.ord, f.next_attempt_at FROM
      (SELECT DISTINCT c.e, c.s FROM unnest(ended_endpoints, ended_subjects) AS c(e, s)) c
    CROSS JOIN LATERAL (
      SELECT x.delivery_id, x.endpoint_id, x.ord, x.held, x.next_attempt_at
      FROM webhook_deliveries x
      WHERE x.endpoint_id = c.e AND x.subject_id = c.s AND x.state IN ('pending', 'retrying')
      ORDER BY x.ord LIMIT 1) f
    WHERE f.held
  ), ranked AS (
    SELECT f.delivery_id, f.ord,
      row_number() OVER (PARTITION BY f.endpoint_id ORDER BY f.ord) AS n,
      COALESCE((per_endpoint ->> f.endpoint_id)::int, 0) AS cap
    FROM firsts f
    WHERE f.next_attempt_at <= now
      AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.endpoint_id = f.endpoint_id AND w.enabled)
  ), picked AS (
    SELECT r.delivery_id FROM ranked r WHERE r.n <= r.cap ORDER BY r.ord LIMIT total
  ), released AS (
    UPDATE webhook_deliveries d SET held = FALSE,
      lease_owner = CASE WHEN p.delivery_id IS NULL THEN NULL ELSE owner END,
      lease_until = CASE WHEN p.delivery_id IS NULL THEN NULL ELSE record_webhook_attempts_leasing.lease_until END
    FROM firsts f LEFT JOIN picked p ON p.delivery_id = f.delivery_id
    WHERE d.delivery_id = f.delivery_id
    RETURNING d.*, p.delivery_id IS NOT NULL AS taken
  ), counted AS (
    SELECT count(*) FILTER (WHERE NOT r.taken)::int AS waiting FROM released r
  )
  SELECT TRUE, r.delivery_id, r.endpoint_id, r.subject_id, r.state, r.event_id, r.event_type,
    r.body, r.attempts, r.attempt_count, r.first_attempt_at, r.next_attempt_at, r.created_at,
    to_jsonb(w)
  FROM released r JOIN webhook_endpoints w ON w.endpoint_id = r.endpoint_id
  WHERE r.taken
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, c.waiting, NULL, NULL, NULL, NULL
  FROM counted c WHERE c.waiting > 0;
END $$;

-- Wakes the workers (`deliveries`) only when a statement added a delivery that a claim may take:
-- one neither leased by the worker that added it nor held behind an earlier one. A fan-out whose
-- worker leased all it added wakes nobody, so no worker runs a claim round that finds nothing.
-- What the adding transaction released behind it is announced by that transaction.
CREATE FUNCTION notify_webhook_deliveries_claimable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM added WHERE lease_owner IS NULL AND NOT held) THEN
    PERFORM pg_notify('webhook_work', 'deliveries');
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER webhook_deliveries_notify ON webhook_deliveries;
CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT
  EXECUTE FUNCTION notify_webhook_deliveries_claimable();
