-- The pool's reserves an atomic swap's execution was recorded against
-- (docs/spec/atomic-swaps.md#execution-check): its input and output reserves as read under the
-- pool's lock, from which the curve's output (`curve_output`) was computed, so the row alone
-- shows that the pool paid no more than its curve. Swaps completed before this migration have
-- none.
ALTER TABLE atomic_swaps
  ADD COLUMN input_reserve_before NUMERIC(38, 10) CHECK (input_reserve_before > 0),
  ADD COLUMN output_reserve_before NUMERIC(38, 10) CHECK (output_reserve_before > 0),
  ADD CONSTRAINT atomic_swaps_reserves_before_together
    CHECK ((input_reserve_before IS NULL) = (output_reserve_before IS NULL));
