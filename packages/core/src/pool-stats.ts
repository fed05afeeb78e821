/**
 * Pool statistics and the ticker (docs/spec/stats.md): pure formulas over fee-event totals,
 * effective reserves, USD prices and hourly price snapshots.
 *
 * Choices made here:
 * - USD figures, APR, APY and the price change are decimal strings cut to 10 decimals (rounded
 *   towards zero), so a figure never overstates.
 * - TVL values each side at its USD price. A side without one is valued through the pool's spot
 *   price against the other side, so a pool pairing a priced token with an unpriced one still has
 *   a TVL. With neither side priced the pool is not supported: `tvl` is `"0"`, `apr` and `apy`
 *   are null.
 * - A supported pool with zero TVL has `apr` and `apy` null too: an empty pool has no yield.
 * - APY needs a 365th power. It is computed in fixed point with `APY_PRECISION_DECIMALS`
 *   fractional digits, every product rounded down, then cut to 10 decimals: never above the exact
 *   value, and at most one unit of the 10th decimal below its exact cut (60 digits keep the
 *   rounding error under 10^-17 even for an APY of 10^40).
 *   An APR or APY that needs more integer digits than the wire carries (`USD_INTEGER_DIGITS_MAX`)
 *   is null rather than a number nobody could act on.
 * - `priceChange24h` compares the price now with the oldest priced snapshot of the last 24 hours
 *   (hours from the one holding `now − 24 h`), and stays null until that snapshot is at least
 *   `PRICE_HISTORY_MIN_MS` (23 h) old. Snapshots are not backfilled: after a gap (the devnet clock
 *   jumping by days) the change is null again until 23 h of new snapshots exist.
 */
import { AMOUNT_SCALE, Amount, divide } from './amount.js';
import { formatRatio, type Ratio, ratio } from './ratio.js';
import type { PoolStats, Ticker } from './schemas/market.js';

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;
const DAYS_PER_YEAR = 365;
/** How much snapshot history `priceChange24h` needs (docs/spec/stats.md#ticker). */
const PRICE_HISTORY_MIN_MS = 23 * HOUR_MS;
const APY_PRECISION_DECIMALS = 60;
/** Integer digits a wire decimal string may have (core's `DecimalStringSchema`). */
const USD_INTEGER_DIGITS_MAX = 40;

const FIGURE_DECIMALS = 10;
const WIRE_LIMIT = 10n ** BigInt(USD_INTEGER_DIGITS_MAX);

/** USD totals of a pool's fee events over a window; events without USD values add zero. */
export interface FeeTotals {
  readonly swapCount: number;
  readonly volumeUsd: Amount;
  readonly feesUsd: Amount;
  readonly lpFeesUsd: Amount;
}

export const NO_FEES: FeeTotals = {
  swapCount: 0,
  volumeUsd: Amount.ZERO,
  feesUsd: Amount.ZERO,
  lpFeesUsd: Amount.ZERO,
};

/** A pool's effective reserves and the USD price (per whole token) of each side, if any. */
export interface PoolValuation {
  readonly reserveA: Amount;
  readonly reserveB: Amount;
  readonly priceA: Ratio | null;
  readonly priceB: Ratio | null;
}

/** USD per whole token of each side, a missing one taken through the pool's spot price. */
function sidePricesOf(pool: PoolValuation): { priceA: Ratio; priceB: Ratio } | null {
  const { reserveA, reserveB } = pool;
  if (pool.priceA !== null && pool.priceB !== null) {
    return { priceA: pool.priceA, priceB: pool.priceB };
  }
  if (pool.priceA !== null) {
    if (!reserveB.isPositive()) return { priceA: pool.priceA, priceB: ratio(0n, 1n) };
    return { priceA: pool.priceA, priceB: scale(pool.priceA, reserveA.units, reserveB.units) };
  }
  if (pool.priceB !== null) {
    if (!reserveA.isPositive()) return { priceA: ratio(0n, 1n), priceB: pool.priceB };
    return { priceA: scale(pool.priceB, reserveB.units, reserveA.units), priceB: pool.priceB };
  }
  return null;
}

/** `price × numerator / denominator`. */
function scale(price: Ratio, numerator: bigint, denominator: bigint): Ratio {
  return ratio(price.numerator * numerator, price.denominator * denominator);
}

/** USD price of the base token (tokenA); null when neither side has a USD price. */
export function basePriceUsdOf(pool: PoolValuation): Ratio | null {
  return sidePricesOf(pool)?.priceA ?? null;
}

/** `reserveA × priceA + reserveB × priceB` in USD; null when neither side has a USD price. */
export function tvlOf(pool: PoolValuation): Ratio | null {
  const prices = sidePricesOf(pool);
  if (prices === null) return null;
  const { priceA, priceB } = prices;
  return ratio(
    pool.reserveA.units * priceA.numerator * priceB.denominator +
      pool.reserveB.units * priceB.numerator * priceA.denominator,
    AMOUNT_SCALE * priceA.denominator * priceB.denominator,
  );
}

/** `lpFees / tvl × 365 / days`; null for a zero TVL. */
export function aprOf(lpFeesUsd: Amount, tvlUsd: Ratio, days: number): Ratio | null {
  if (!Number.isInteger(days) || days < 1) throw new RangeError(`invalid lookback: ${days} days`);
  if (tvlUsd.numerator === 0n) return null;
  return ratio(
    lpFeesUsd.units * BigInt(DAYS_PER_YEAR) * tvlUsd.denominator,
    AMOUNT_SCALE * tvlUsd.numerator * BigInt(days),
  );
}

/**
 * `(1 + apr/365)^365 − 1`, as a fixed-point ratio over `10^APY_PRECISION_DECIMALS` (see the
 * module comment for its accuracy); null when it would not fit the wire.
 */
export function apyOf(apr: Ratio): Ratio | null {
  const one = 10n ** BigInt(APY_PRECISION_DECIMALS);
  const periods = BigInt(DAYS_PER_YEAR);
  const base = one + divide(apr.numerator * one, apr.denominator * periods, 'down');
  const limit = (WIRE_LIMIT + 1n) * one;
  // Every intermediate is at most base^365 (base ≥ 1), so one past the limit means the result is.
  let result = one;
  let factor = base;
  for (let exponent = DAYS_PER_YEAR; exponent > 0; exponent >>= 1) {
    if (exponent & 1) result = (result * factor) / one;
    if (result >= limit) return null;
    if (exponent > 1) factor = (factor * factor) / one;
    if (factor >= limit) return null;
  }
  const growth = result - one;
  if (growth >= WIRE_LIMIT * one) return null;
  return ratio(growth, one);
}

/** A non-negative figure as a wire string: cut to 10 decimals. */
function formatFigure(value: Ratio): string {
  return formatRatio(value, 'down', FIGURE_DECIMALS);
}

/** A USD value as an amount, cut to 10 decimals (for storing a price). */
export function usdAmountOf(value: Ratio): Amount {
  return Amount.fromUnits(divide(value.numerator * AMOUNT_SCALE, value.denominator, 'down'));
}

function fitsWire(value: Ratio): boolean {
  return value.numerator / value.denominator < WIRE_LIMIT;
}

export interface PoolStatsInput {
  readonly poolId: string;
  /** APR lookback in days (an integer ≥ 1). */
  readonly days: number;
  readonly now: Date;
  readonly last24h: FeeTotals;
  /** Totals of the last `days` days. */
  readonly lookback: FeeTotals;
  readonly valuation: PoolValuation;
  /** The token the USD figures rest on, e.g. `USDCx`. */
  readonly quoteToken: string;
}

export function poolStatsOf(input: PoolStatsInput): PoolStats {
  const tvl = tvlOf(input.valuation);
  const apr = tvl === null ? null : aprOf(input.lookback.lpFeesUsd, tvl, input.days);
  const shownApr = apr !== null && fitsWire(apr) ? apr : null;
  const apy = shownApr === null ? null : apyOf(shownApr);
  return {
    poolId: input.poolId,
    apr: shownApr === null ? null : formatFigure(shownApr),
    apy: apy === null ? null : formatFigure(apy),
    volume24h: input.last24h.volumeUsd.toString(),
    fees24h: input.last24h.feesUsd.toString(),
    lpFees24h: input.last24h.lpFeesUsd.toString(),
    tvl: tvl === null ? '0' : formatFigure(tvl),
    swapCount24h: input.last24h.swapCount,
    aprMeta: {
      lookbackDays: input.days,
      from: new Date(input.now.getTime() - input.days * DAY_MS).toISOString(),
      to: input.now.toISOString(),
      supported: tvl !== null,
      quoteToken: input.quoteToken,
    },
  };
}

/** The USD price of a pool's base token stored for one hour; null when it had none. */
export interface HourlyPrice {
  /** Start of the hour. */
  readonly hour: Date;
  readonly priceUsd: Amount | null;
}

/** `(price − then) / then` against the reference snapshot (module comment); null without one. */
export function priceChange24hOf(
  now: Date,
  priceUsd: Amount,
  history: readonly HourlyPrice[],
): string | null {
  const reference = referencePriceOf(now, history);
  if (reference === null) return null;
  const falling = priceUsd.lt(reference);
  const move = falling ? reference.sub(priceUsd) : priceUsd.sub(reference);
  return formatRatio(ratio(move.units, reference.units), 'down', FIGURE_DECIMALS, falling);
}

function referencePriceOf(now: Date, history: readonly HourlyPrice[]): Amount | null {
  const windowStartMs = Math.floor((now.getTime() - DAY_MS) / HOUR_MS) * HOUR_MS;
  let oldest: HourlyPrice | null = null;
  for (const entry of history) {
    const hourMs = entry.hour.getTime();
    if (hourMs < windowStartMs || hourMs > now.getTime()) continue;
    if (entry.priceUsd === null || !entry.priceUsd.isPositive()) continue;
    if (oldest === null || hourMs < oldest.hour.getTime()) oldest = entry;
  }
  if (oldest === null || now.getTime() - oldest.hour.getTime() < PRICE_HISTORY_MIN_MS) return null;
  return oldest.priceUsd;
}

export interface TickerInput {
  readonly poolId: string;
  /** Base and quote symbol, e.g. `Amulet/USDCx`. */
  readonly pair: string;
  /** USD price of the base token now, cut to 10 decimals like the stored snapshots. */
  readonly priceUsd: Amount;
  readonly history: readonly HourlyPrice[];
  readonly volume24hUsd: Amount;
  readonly now: Date;
}

export function tickerOf(input: TickerInput): Ticker {
  return {
    poolId: input.poolId,
    pair: input.pair,
    price: input.priceUsd.toString(),
    priceChange24h: priceChange24hOf(input.now, input.priceUsd, input.history),
    volume24h: input.volume24hUsd.toString(),
    asOf: input.now.toISOString(),
  };
}
