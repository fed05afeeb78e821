-- Webhooks of atomic swaps (docs/spec/webhooks.md#event-types): every state change an atomic
-- swap's outbox records (atomic_swap_events, migration 0021) is queued as `atomic_swap.<state>`,
-- as a swap's state changes are (migration 0017): by the statement that wrote the row, so none is
-- lost and none is queued for a change that rolled back, and only for developers with an enabled
-- endpoint. The event id is the outbox row's, `evt_atomic_swap_<seq>`: the SSE stream's `id:`
-- with the kind's prefix; the key is the one the swap was prepared with, so `apiKeyIds` narrows
-- atomic swaps as it narrows intents.
CREATE FUNCTION queue_atomic_swap_webhook_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_events (event_id, developer_party, type, subject_id, api_key_id, outbox_seq, at)
  SELECT 'evt_atomic_swap_' || e.seq, s.developer_party, 'atomic_swap.' || e.status,
    e.atomic_swap_id, s.api_key_id, e.seq, e.at
  FROM added e JOIN atomic_swaps s ON s.atomic_swap_id = e.atomic_swap_id
  WHERE EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.developer_party = s.developer_party AND w.enabled)
  ORDER BY e.seq
  ON CONFLICT (event_id) DO NOTHING;
  RETURN NULL;
END $$;

CREATE TRIGGER atomic_swap_events_webhooks AFTER INSERT ON atomic_swap_events
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT
  EXECUTE FUNCTION queue_atomic_swap_webhook_events();
