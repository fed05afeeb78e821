-- The engine's execution queue: every work round of every worker lists the oldest swaps whose
-- deposit is in (`deposit_received`, `forwarded`). Without an index of its own that list was a
-- scan of every intent ever made: 8 ms after a drain of 20 000 swaps, growing without bound.
-- The queue itself is small, so is this index.
CREATE INDEX intents_queued ON intents (updated_at, intent_id)
  WHERE status IN ('deposit_received', 'forwarded');
