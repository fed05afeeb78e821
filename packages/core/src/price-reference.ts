/**
 * A pool's reference price for the reserve-price deviation check (docs/spec/guard.md#reference):
 * an exponential moving average of the pool's spot price over time, and the guard state it implies.
 *
 * Choices made here:
 * - The spot price is piecewise constant between observations (it changes only when the reserves
 *   do), so the average is exact for that path: after `dt` at spot `p`, the reference is
 *   `p + (r − p) · 2^(−dt / REFERENCE_HALF_LIFE_MS)`. Two short steps equal one long one, so how
 *   often the caller observes does not change the reference.
 * - The weight is read to `WEIGHT_DECIMALS` decimals and the reference kept over a denominator of
 *   10^`PRICE_DIGITS`, so the fractions stay small however many trades a pool sees.
 * - Prices are tokenB per tokenA. Deviation is `max(p, r) / min(p, r) − 1`, the same figure read
 *   in either direction, so a pool's state does not depend on which way a caller trades.
 * - A clock that steps back (the devnet clock can be set) moves nothing: `dt` below zero is zero.
 */
import { type Amount, divide } from './amount.js';
import { compareRatio, formatRatio, type Ratio, ratio, ratioToNumber } from './ratio.js';

/** Half the distance to the spot price is covered in this time: 15 minutes. */
export const REFERENCE_HALF_LIFE_MS = 15 * 60 * 1000;
/** Decimals the time weight is read to. */
const WEIGHT_DECIMALS = 12n;
const WEIGHT_SCALE = 10n ** WEIGHT_DECIMALS;
/** A reference is kept over a denominator of 10^24: far below any limit's resolution. */
const PRICE_DIGITS = 24n;

/** What a process knows of a pool's reference, in tokenB per tokenA. */
export interface PoolPriceReference {
  /** The reference at `atMs`. */
  readonly price: Ratio;
  /** The pool's spot price since `atMs`. */
  readonly spot: Ratio;
  readonly atMs: number;
  /** When the pool last became limited (its spot left the band); null while clear. */
  readonly limitedSinceMs: number | null;
}

/** The first reading of a pool: the reference starts at `seed` (e.g. a snapshot mean) or the spot. */
export function startReference(
  spot: Ratio,
  seed: Ratio | null,
  nowMs: number,
  limit: Ratio,
): PoolPriceReference {
  const price = seed !== null && seed.numerator > 0n ? seed : spot;
  const limited = compareRatio(priceDeviation(spot, price), limit) > 0;
  return { price, spot, atMs: nowMs, limitedSinceMs: limited ? nowMs : null };
}

/** The reference after the spot was `reference.spot` until `nowMs` and is `spot` from then on. */
export function observeSpot(
  reference: PoolPriceReference,
  spot: Ratio,
  nowMs: number,
  limit: Ratio,
): PoolPriceReference {
  const atMs = Math.max(reference.atMs, nowMs);
  const price = referencePriceAt(reference, atMs);
  const limited = compareRatio(priceDeviation(spot, price), limit) > 0;
  const wasLimited = reference.limitedSinceMs !== null && isLimitedAt(reference, atMs, limit);
  const limitedSinceMs = !limited ? null : wasLimited ? reference.limitedSinceMs : atMs;
  return { price, spot, atMs, limitedSinceMs };
}

/** The reference at `nowMs`, the spot unchanged since `reference.atMs`. */
export function referencePriceAt(reference: PoolPriceReference, nowMs: number): Ratio {
  const { price, spot } = reference;
  const dt = Math.max(0, nowMs - reference.atMs);
  if (dt === 0 || compareRatio(price, spot) === 0) return price;
  const keep = BigInt(Math.round(2 ** (-dt / REFERENCE_HALF_LIFE_MS) * Number(WEIGHT_SCALE)));
  // r' = (p·(S − keep) + r·keep) / S, with both fractions over one denominator.
  const numerator =
    spot.numerator * price.denominator * (WEIGHT_SCALE - keep) +
    price.numerator * spot.denominator * keep;
  return compact(ratio(numerator, spot.denominator * price.denominator * WEIGHT_SCALE));
}

/**
 * The pool's reference as an execution at `nowMs` reads it, the pool's spot being `spot` then: the
 * reference it was last left at (`known`, its spot held since), followed to now; for a pool
 * without one, a start from `seed` (the mean of its recent snapshots) or the spot, as a process
 * that quotes starts. The same rule as every quoting process's, so the two differ only in where
 * they started.
 */
export function referenceAtExecution(
  known: PoolPriceReference | null,
  spot: Ratio,
  seed: Ratio | null,
  nowMs: number,
  limit: Ratio,
): PoolPriceReference {
  return known === null
    ? startReference(spot, seed, nowMs, limit)
    : observeSpot(known, spot, nowMs, limit);
}

/**
 * A price in tokenB per tokenA as output per unit of input, the way the guard reads its
 * reference: the same for an input of tokenA, its inverse for tokenB (null for a zero price).
 */
export function perUnitOfInput(price: Ratio, inputIsTokenA: boolean): Ratio | null {
  if (inputIsTokenA) return price;
  return price.numerator === 0n ? null : ratio(price.denominator, price.numerator);
}

/** The pool's spot, tokenB per tokenA; null while either reserve is empty (no price). */
export function spotOfReserves(reserveA: Amount, reserveB: Amount): Ratio | null {
  if (!reserveA.isPositive() || !reserveB.isPositive()) return null;
  return ratio(reserveB.units, reserveA.units);
}

/** The mean spot (tokenB per tokenA) of readings of a pool's reserves; null when none can price. */
export function meanSpotPrice(
  readings: readonly { readonly reserveA: Amount; readonly reserveB: Amount }[],
): Ratio | null {
  let sum: Ratio | null = null;
  let count = 0n;
  for (const reading of readings) {
    const spot = spotOfReserves(reading.reserveA, reading.reserveB);
    if (spot === null) continue;
    sum =
      sum === null
        ? spot
        : ratio(
            sum.numerator * spot.denominator + spot.numerator * sum.denominator,
            sum.denominator * spot.denominator,
          );
    count += 1n;
  }
  return sum === null ? null : ratio(sum.numerator, sum.denominator * count);
}

/** `max(p, r) / min(p, r) − 1`; both must be positive. */
export function priceDeviation(price: Ratio, reference: Ratio): Ratio {
  const left = price.numerator * reference.denominator;
  const right = reference.numerator * price.denominator;
  const [high, low] = left > right ? [left, right] : [right, left];
  return ratio(high - low, low);
}

function isLimitedAt(reference: PoolPriceReference, nowMs: number, limit: Ratio): boolean {
  return (
    compareRatio(priceDeviation(reference.spot, referencePriceAt(reference, nowMs)), limit) > 0
  );
}

/** The ratio rounded down to a denominator of 10^PRICE_DIGITS when its own is larger. */
function compact(value: Ratio): Ratio {
  const scale = 10n ** PRICE_DIGITS;
  if (value.denominator <= scale) return value;
  const units = divide(value.numerator * scale, value.denominator, 'down');
  return ratio(units, scale);
}

/** Which way a trade must go to be allowed whatever its size within the band. */
export type GuardDirection = 'tokenA_to_tokenB' | 'tokenB_to_tokenA' | 'either';

/** A pool's guard state for the pool routes and quotes (docs/spec/guard.md#pool-guard-state). */
export interface PoolGuardState {
  readonly state: 'clear' | 'limited';
  /** When the pool became limited; null while clear. */
  readonly since: number | null;
  /** Spot and reference, tokenB per tokenA. */
  readonly spot: Ratio;
  readonly reference: Ratio;
  readonly deviation: Ratio;
  readonly limit: Ratio;
  /** Prices (tokenB per tokenA) a trade may end at: `reference / (1 + limit)` to `reference · (1 + limit)`. */
  readonly band: { readonly low: Ratio; readonly high: Ratio };
  /** While limited, the direction that moves the spot toward the reference; `either` while clear. */
  readonly allowedDirection: GuardDirection;
  /** While limited, when the reference reaches the band's edge if nothing trades; null while clear. */
  readonly clearsAtMs: number | null;
  readonly halfLifeMs: number;
}

export function poolGuardStateOf(
  reference: PoolPriceReference,
  nowMs: number,
  limit: Ratio,
): PoolGuardState {
  const price = referencePriceAt(reference, nowMs);
  const { spot } = reference;
  const deviation = priceDeviation(spot, price);
  const limited = compareRatio(deviation, limit) > 0;
  const onePlus = {
    numerator: limit.denominator + limit.numerator,
    denominator: limit.denominator,
  };
  const band = {
    low: ratio(price.numerator * onePlus.denominator, price.denominator * onePlus.numerator),
    high: ratio(price.numerator * onePlus.numerator, price.denominator * onePlus.denominator),
  };
  // Spot above the reference: tokenA is dear, so selling tokenA (A → B) lowers it.
  const above = compareRatio(spot, price) > 0;
  return {
    state: limited ? 'limited' : 'clear',
    since: limited ? (reference.limitedSinceMs ?? nowMs) : null,
    spot,
    reference: price,
    deviation,
    limit,
    band,
    allowedDirection: !limited ? 'either' : above ? 'tokenA_to_tokenB' : 'tokenB_to_tokenA',
    clearsAtMs: limited ? nowMs + timeToClearMs(spot, price, limit) : null,
    halfLifeMs: REFERENCE_HALF_LIFE_MS,
  };
}

/**
 * How long until `priceDeviation(spot, reference(t)) = limit` with the spot unchanged: the
 * distance `|r − p|` shrinks by `f = 2^(−t/H)`. With `D` the deviation now and `L` the limit, the
 * edge is `f = L / D` when r is above p, and `f = L · (1 + D) / (D · (1 + L))` when below (there
 * the deviation is measured against r, which moves). An estimate for people: a float is enough.
 */
function timeToClearMs(spot: Ratio, reference: Ratio, limit: Ratio): number {
  const deviation = ratioToNumber(priceDeviation(spot, reference));
  const l = ratioToNumber(limit);
  const above = compareRatio(reference, spot) > 0;
  const f = above ? l / deviation : (l * (1 + deviation)) / (deviation * (1 + l));
  if (!(f > 0 && f < 1)) return 0;
  return Math.ceil(-Math.log2(f) * REFERENCE_HALF_LIFE_MS);
}

/** The guard state on the wire (`PoolGuard` of schemas/market.ts). */
export interface WirePoolGuard {
  readonly state: 'clear' | 'limited';
  readonly since: string | null;
  readonly baseToken: string;
  readonly quoteToken: string;
  readonly price: string;
  readonly referencePrice: string;
  readonly deviation: string;
  readonly limit: string;
  readonly priceBand: { readonly low: string; readonly high: string };
  readonly allowedInputToken: string | null;
  readonly clearsAt: string | null;
  readonly referenceHalfLifeSeconds: number;
}

/** Prices to 10 decimals, the deviation to 4 rounded up as in the guard's reasons. */
export function poolGuardToWire(
  state: PoolGuardState,
  tokens: { readonly tokenA: string; readonly tokenB: string },
): WirePoolGuard {
  const price = (value: Ratio) => formatRatio(value, 'down', 10);
  const at = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const allowed = {
    tokenA_to_tokenB: tokens.tokenA,
    tokenB_to_tokenA: tokens.tokenB,
    either: null,
  };
  return {
    state: state.state,
    since: at(state.since),
    baseToken: tokens.tokenA,
    quoteToken: tokens.tokenB,
    price: price(state.spot),
    referencePrice: price(state.reference),
    deviation: formatRatio(state.deviation, 'up', 4),
    limit: formatRatio(state.limit, 'down'),
    priceBand: { low: formatRatio(state.band.low, 'up', 10), high: price(state.band.high) },
    allowedInputToken: allowed[state.allowedDirection],
    clearsAt: at(state.clearsAtMs),
    referenceHalfLifeSeconds: state.halfLifeMs / 1000,
  };
}
