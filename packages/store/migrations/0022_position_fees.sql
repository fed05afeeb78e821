-- The LP fees a liquidity position earned (docs/spec/liquidity.md#fees-earned).
--
-- Per pool and side, the LP fee per liquidity unit accrued since the pool opened (its fee
-- growth), exact to 38 decimals: a unit's share of one swap's LP fee, rounded down. Per position,
-- the growth it last counted up to and what it accrued before, settled whenever its units change.
-- Pools and positions that exist already start counting now: their growth and accrued fees are
-- zero, so fees from before this migration are not reported (they are in the reserves all the
-- same, and a burn pays them out).
ALTER TABLE pools
  ADD COLUMN lp_fee_growth_a NUMERIC(80, 38) NOT NULL DEFAULT 0 CHECK (lp_fee_growth_a >= 0),
  ADD COLUMN lp_fee_growth_b NUMERIC(80, 38) NOT NULL DEFAULT 0 CHECK (lp_fee_growth_b >= 0);

ALTER TABLE liquidity_positions
  ADD COLUMN fee_growth_last_a NUMERIC(80, 38) NOT NULL DEFAULT 0 CHECK (fee_growth_last_a >= 0),
  ADD COLUMN fee_growth_last_b NUMERIC(80, 38) NOT NULL DEFAULT 0 CHECK (fee_growth_last_b >= 0),
  ADD COLUMN fees_accrued_a NUMERIC(38, 10) NOT NULL DEFAULT 0 CHECK (fees_accrued_a >= 0),
  ADD COLUMN fees_accrued_b NUMERIC(38, 10) NOT NULL DEFAULT 0 CHECK (fees_accrued_b >= 0);
