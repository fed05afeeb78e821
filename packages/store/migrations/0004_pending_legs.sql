-- Pending legs (docs/spec/lifecycle.md#payout-and-refund-legs): a payout or refund to a party without a transfer pre-approval is a
-- two-step offer the party must accept. The intent keeps where its offer is; the committed facts
-- (payout_update_id, refund_update_id) stay where they were.

ALTER TABLE intents ADD COLUMN payout_offer_id TEXT;
ALTER TABLE intents ADD COLUMN payout_offer_state TEXT
  CHECK (payout_offer_state IN ('offered', 'committed', 'rejected', 'expired'));
ALTER TABLE intents ADD COLUMN payout_offer_expires_at TIMESTAMPTZ;
-- The update that last moved the offer: its creation, then its acceptance, rejection or expiry.
ALTER TABLE intents ADD COLUMN payout_offer_update_id TEXT;
ALTER TABLE intents ADD CONSTRAINT intents_payout_offer_whole CHECK (
  (payout_offer_id IS NULL) = (payout_offer_state IS NULL)
  AND (payout_offer_id IS NULL) = (payout_offer_expires_at IS NULL)
  AND (payout_offer_id IS NULL) = (payout_offer_update_id IS NULL));

ALTER TABLE intents ADD COLUMN refund_offer_id TEXT;
ALTER TABLE intents ADD COLUMN refund_offer_state TEXT
  CHECK (refund_offer_state IN ('offered', 'committed', 'rejected', 'expired'));
ALTER TABLE intents ADD COLUMN refund_offer_expires_at TIMESTAMPTZ;
ALTER TABLE intents ADD COLUMN refund_offer_update_id TEXT;
ALTER TABLE intents ADD CONSTRAINT intents_refund_offer_whole CHECK (
  (refund_offer_id IS NULL) = (refund_offer_state IS NULL)
  AND (refund_offer_id IS NULL) = (refund_offer_expires_at IS NULL)
  AND (refund_offer_id IS NULL) = (refund_offer_update_id IS NULL));

-- Leg events share the outbox with state events, so one sequence orders both: NULL for a state
-- change, else the leg event's name; `status` is then the intent's state when it happened.
ALTER TABLE intent_events ADD COLUMN leg_event TEXT CHECK (leg_event IN (
  'payout_offered', 'payout_accepted', 'payout_rejected', 'payout_expired',
  'refund_offered', 'refund_accepted', 'refund_rejected', 'refund_expired'));
