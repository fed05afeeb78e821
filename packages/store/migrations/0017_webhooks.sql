-- Webhooks (docs/spec/webhooks.md): a developer's endpoints, the events waiting to be fanned out
-- to them, and one delivery per endpoint and event with its attempts.
--
-- An event is queued by a trigger in the transaction that made it (an outbox row, a withdrawal's
-- status, a collection paid, a key revoked), so none is lost and none is queued for a change that
-- rolled back. Queued rows are deleted by the fan-out that turned them into deliveries, in the same
-- transaction: no cursor over the outboxes, whose `seq` values may commit out of order. Only
-- developers with an enabled endpoint get queued rows.

CREATE TABLE webhook_endpoints (
  endpoint_id                TEXT PRIMARY KEY CHECK (endpoint_id ~ '^we_[A-Za-z0-9_-]{16,32}$'),
  developer_party            TEXT NOT NULL REFERENCES developers (party_id),
  url                        TEXT NOT NULL CHECK (char_length(url) <= 2048),
  -- Patterns (`swap.completed`, `swap.*`); empty: every event.
  events                     TEXT[] NOT NULL DEFAULT '{}' CHECK (cardinality(events) <= 64),
  -- NULL: intents of every key of the developer.
  api_key_ids                TEXT[] CHECK (cardinality(api_key_ids) <= 25),
  description                TEXT NOT NULL DEFAULT '' CHECK (char_length(description) <= 500),
  -- The signing secrets themselves: an HMAC needs the key, not a hash of it. The previous one
  -- signs beside the current one until `previous_secret_expires_at` (a rotation's overlap).
  secret                     TEXT NOT NULL,
  previous_secret            TEXT,
  previous_secret_expires_at TIMESTAMPTZ,
  secret_rotated_at          TIMESTAMPTZ,
  enabled                    BOOLEAN NOT NULL DEFAULT TRUE,
  disabled_reason            TEXT,
  disabled_at                TIMESTAMPTZ,
  -- Deliveries given up since the last one delivered, and the first failed attempt since then.
  failed_in_row              INTEGER NOT NULL DEFAULT 0 CHECK (failed_in_row >= 0),
  failing_since              TIMESTAMPTZ,
  created_at                 TIMESTAMPTZ NOT NULL,
  updated_at                 TIMESTAMPTZ NOT NULL,
  CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL))
);
CREATE INDEX webhook_endpoints_by_developer ON webhook_endpoints (developer_party, created_at);

CREATE TABLE webhook_events (
  queued_seq       BIGSERIAL PRIMARY KEY,
  -- Stable per event (`evt_swap_<outbox seq>`, …): every delivery of it repeats it.
  event_id         TEXT NOT NULL UNIQUE,
  developer_party  TEXT NOT NULL,
  type             TEXT NOT NULL,
  -- The intent, withdrawal, collection or key the event is about; events of one subject are
  -- delivered to an endpoint in queue order.
  subject_id       TEXT NOT NULL,
  -- The key an intent was created with; NULL for the developer's own events.
  api_key_id       TEXT,
  -- The outbox row of an intent's event.
  outbox_seq       BIGINT,
  at               TIMESTAMPTZ NOT NULL
);

CREATE TABLE webhook_deliveries (
  delivery_id      TEXT PRIMARY KEY,
  endpoint_id      TEXT NOT NULL REFERENCES webhook_endpoints (endpoint_id) ON DELETE CASCADE,
  -- Order among the endpoint's deliveries of one subject: a delivery waits for earlier ones.
  ord              BIGSERIAL NOT NULL,
  event_id         TEXT NOT NULL,
  event_type       TEXT NOT NULL,
  subject_id       TEXT NOT NULL,
  -- The exact body sent, every attempt alike (what is signed).
  body             TEXT NOT NULL,
  state            TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'retrying', 'failed')),
  -- [{at, statusCode, latencyMs, error, responseExcerpt}], at most the schedule's attempts.
  attempts         JSONB NOT NULL DEFAULT '[]',
  attempt_count    INTEGER NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
  first_attempt_at TIMESTAMPTZ,
  next_attempt_at  TIMESTAMPTZ,
  -- The worker trying it now and until when; another may take it over after.
  lease_owner      TEXT,
  lease_until      TIMESTAMPTZ,
  -- A resend's original delivery; NULL for the fan-out's.
  resend_of        TEXT,
  created_at       TIMESTAMPTZ NOT NULL,
  ended_at         TIMESTAMPTZ,
  CHECK ((state IN ('delivered', 'failed')) = (ended_at IS NOT NULL)),
  CHECK ((state IN ('pending', 'retrying')) = (next_attempt_at IS NOT NULL))
);
CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (endpoint_id, event_id)
  WHERE resend_of IS NULL;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
  WHERE state IN ('pending', 'retrying');
CREATE INDEX webhook_deliveries_open_by_subject ON webhook_deliveries (endpoint_id, subject_id, ord)
  WHERE state IN ('pending', 'retrying');
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, delivery_id DESC);
CREATE INDEX webhook_deliveries_ended ON webhook_deliveries (ended_at) WHERE ended_at IS NOT NULL;

-- Queues the state changes of an outbox statement (leg events are no webhook events), for
-- developers with an enabled endpoint. TG_ARGV: the kind's type prefix, its event-id prefix,
-- the intents table, and its id column.
CREATE FUNCTION queue_intent_webhook_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_ARGV[0] = 'swap' THEN
    INSERT INTO webhook_events (event_id, developer_party, type, subject_id, api_key_id, outbox_seq, at)
    SELECT 'evt_swap_' || e.seq, i.developer_party, 'swap.' || e.status, e.intent_id, i.api_key_id, e.seq, e.at
    FROM added e JOIN intents i ON i.intent_id = e.intent_id
    WHERE e.leg_event IS NULL
      AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.developer_party = i.developer_party AND w.enabled)
    ORDER BY e.seq
    ON CONFLICT (event_id) DO NOTHING;
  ELSE
    INSERT INTO webhook_events (event_id, developer_party, type, subject_id, api_key_id, outbox_seq, at)
    SELECT 'evt_liquidity_' || e.seq, i.developer_party, 'liquidity_intent.' || e.status,
      e.liquidity_intent_id, i.api_key_id, e.seq, e.at
    FROM added e JOIN liquidity_intents i ON i.liquidity_intent_id = e.liquidity_intent_id
    WHERE EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.developer_party = i.developer_party AND w.enabled)
    ORDER BY e.seq
    ON CONFLICT (event_id) DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER intent_events_webhooks AFTER INSERT ON intent_events
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION queue_intent_webhook_events('swap');
CREATE TRIGGER liquidity_events_webhooks AFTER INSERT ON liquidity_events
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION queue_intent_webhook_events('liquidity');

-- A withdrawal's status as its view derives it: flagged, completed, or paying.
CREATE FUNCTION withdrawal_webhook_status(payout_a TEXT, payout_b TEXT, completed_at TIMESTAMPTZ)
RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN payout_a = 'flagged' OR payout_b = 'flagged' THEN 'flagged'
              WHEN completed_at IS NOT NULL THEN 'completed' ELSE 'paying' END
$$;

CREATE FUNCTION queue_withdrawal_webhook_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  next_status TEXT := withdrawal_webhook_status(NEW.payout_a, NEW.payout_b, NEW.completed_at);
BEGIN
  IF TG_OP = 'UPDATE'
     AND withdrawal_webhook_status(OLD.payout_a, OLD.payout_b, OLD.completed_at) = next_status THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_events (event_id, developer_party, type, subject_id, api_key_id, at)
  SELECT 'evt_withdrawal_' || NEW.withdrawal_id || '_' || next_status, k.developer_party,
    'liquidity_withdrawal.' || next_status, NEW.withdrawal_id, NEW.api_key_id, NEW.updated_at
  FROM api_keys k
  WHERE k.key_id = NEW.api_key_id
    AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.developer_party = k.developer_party AND w.enabled)
  ON CONFLICT (event_id) DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER liquidity_withdrawals_webhooks AFTER INSERT OR UPDATE ON liquidity_withdrawals
  FOR EACH ROW EXECUTE FUNCTION queue_withdrawal_webhook_event();

CREATE FUNCTION queue_collection_webhook_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_events (event_id, developer_party, type, subject_id, at)
  SELECT 'evt_collection_' || NEW.collection_id, NEW.developer_party, 'collection.paid',
    NEW.collection_id, COALESCE(NEW.settled_at, NEW.created_at)
  WHERE EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.developer_party = NEW.developer_party AND w.enabled)
  ON CONFLICT (event_id) DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER developer_collections_webhooks AFTER UPDATE OF status ON developer_collections
  FOR EACH ROW WHEN (NEW.status = 'collected' AND OLD.status IS DISTINCT FROM 'collected')
  EXECUTE FUNCTION queue_collection_webhook_event();

CREATE FUNCTION queue_api_key_webhook_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_events (event_id, developer_party, type, subject_id, at)
  SELECT 'evt_api_key_' || NEW.key_id || '_revoked', NEW.developer_party, 'api_key.revoked',
    NEW.key_id, NEW.revoked_at
  WHERE EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.developer_party = NEW.developer_party AND w.enabled)
  ON CONFLICT (event_id) DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER api_keys_webhooks AFTER UPDATE OF revoked_at ON api_keys
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
  EXECUTE FUNCTION queue_api_key_webhook_event();
