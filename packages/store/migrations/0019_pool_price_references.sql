-- Each pool's reference price as its latest execution left it (docs/spec/guard.md#reference), so
-- that execution judges a swap against the pool's reference as quotes do. The reference is an
-- exponential moving average of the spot price; the spot changes only when a swap executes, so the
-- execution that changes it keeps the reference exact: the reference then, and the spot from then
-- on. Written in the executing transaction, under the pool's lock.
--
-- Prices are tokenB per tokenA, as exact fractions (integers over integers): the reference keeps
-- a denominator of at most 10^24 (core's price-reference.ts), the spot is the reserves' ratio.
CREATE TABLE pool_price_references (
  pool_id            TEXT PRIMARY KEY REFERENCES pools (pool_id),
  price_numerator    NUMERIC NOT NULL CHECK (price_numerator > 0 AND scale(price_numerator) = 0),
  price_denominator  NUMERIC NOT NULL CHECK (price_denominator > 0 AND scale(price_denominator) = 0),
  spot_numerator     NUMERIC NOT NULL CHECK (spot_numerator > 0 AND scale(spot_numerator) = 0),
  spot_denominator   NUMERIC NOT NULL CHECK (spot_denominator > 0 AND scale(spot_denominator) = 0),
  -- When the reference was `price` and the spot became `spot`.
  observed_at        TIMESTAMPTZ NOT NULL,
  -- When the spot last left the band around the reference; NULL while within it.
  limited_since      TIMESTAMPTZ
);
