-- Reconciliation counts a pool's atomic swaps completed in its last minutes as in the books
-- already (their books move at execution, before the update stream passes them): read by pool
-- and completion time, not by a scan of every swap the pool ever made.
CREATE INDEX atomic_swaps_completed_by_pool ON atomic_swaps (pool_id, completed_at)
  WHERE status = 'completed';
