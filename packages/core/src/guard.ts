/**
 * The settlement-safety guard (docs/spec/guard.md): one pure decision over plain data, evaluated
 * for quotes, at swap creation and again right before the payout.
 *
 * Checks run in a fixed order and the first failing one is the verdict:
 *
 * 1. `settlement_safety_guard_unavailable`: an input cannot be read or trusted (a store error, an
 *    invalid threshold or accounting count, an unknown window-start reserve, a zero time-weighted
 *    price, a reference price that is missing, zero or older than its limit). The guard fails
 *    closed, and before anything else: a verdict computed from inputs it cannot trust is no verdict.
 * 2. `invalid_output_reserve`: the output reserve is missing, zero or below the output.
 * 3. `invalid_execution_price`: zero output or priced input, no positive input reserve (no spot
 *    price), or an execution rate that is zero or too large at Numeric 10.
 * 4. `incomplete_completed_accounting`: a pool-wide hold until an operator resolves it
 *    (docs/spec/lifecycle.md#reconciliation).
 * 5. `output_reserve_share_exceeded`, then 6. `output_velocity_exceeded`: the size of this trade,
 *    then its size together with the trailing hour.
 * 7. `reserve_price_deviation_exceeded`, then 8. `reference_price_deviation_exceeded`: the
 *    pool's price once this trade is done, against the pool's reference price (price-reference.ts)
 *    and then the USD reference. A trade that ends outside the band is refused unless it ends
 *    nearer the reference than the pool is now: the trade that would trip the check is the one
 *    refused, and the trades that heal a deviation are never.
 *
 * Every limit blocks when strictly exceeded: a value exactly at the limit passes. Comparisons are
 * exact fractions; a limit given as a number is read to 10 decimals.
 */
import {
  AMOUNT_DECIMALS,
  AMOUNT_INTEGER_DIGITS_MAX,
  AMOUNT_SCALE,
  type Amount,
  divide,
} from './amount.js';
import { priceDeviation } from './price-reference.js';
import { executionRate, type Reserves, spotPrice } from './pricing.js';
import { compareRatio, formatRatio, type Ratio, ratio, ratioFromNumber } from './ratio.js';
import type { SettlementSafety, SettlementSafetyCode } from './settlement-safety.js';

/** Per-pool limits; each share or deviation is a fraction (`0.1` is 10 %). */
export interface GuardThresholds {
  /** Largest output as a share of the output reserve. */
  readonly outputReserveShareMax: number;
  /** Largest trailing-hour outputs (this one included) as a share of the window-start reserve. */
  readonly outputVelocityShareMax: number;
  /** Largest deviation of the price after a trade from the pool's reference price. */
  readonly reservePriceDeviationMax: number;
  /** Largest deviation of the price after a trade from the USD reference price. */
  readonly referencePriceDeviationMax: number;
  /** Oldest USD reference price still trusted; must be finite. */
  readonly referencePriceAgeMaxMs: number;
}

export const DEFAULT_GUARD_THRESHOLDS: GuardThresholds = {
  outputReserveShareMax: 0.1,
  outputVelocityShareMax: 0.25,
  reservePriceDeviationMax: 0.05,
  referencePriceDeviationMax: 0.1,
  referencePriceAgeMaxMs: 30 * 60 * 1000,
};

/**
 * The band's half-width of the reserve-price check, `reservePriceDeviationMax`, as a fraction; a
 * value that cannot be read gives the default, for the pool's guard state and its reference's
 * "limited since" (the guard itself fails closed on it).
 */
export function reservePriceLimitOf(thresholds: Partial<GuardThresholds>): Ratio {
  const fallback = ratioFromNumber(DEFAULT_GUARD_THRESHOLDS.reservePriceDeviationMax);
  return readLimit(thresholds.reservePriceDeviationMax ?? Number.NaN) ?? fallback;
}

/** How old the USD reference is: given directly, or as an observation time and the current time. */
export type ReferencePriceAge =
  | { readonly ageMs: number }
  | { readonly observedAtMs: number; readonly nowMs: number };

/**
 * The USD reference of a pool whose two instruments both have a USD price (Amulet through the
 * ledger's open mining round, USDCx = 1).
 */
export type ReferencePrice = ReferencePriceAge & {
  /** Output per unit of input at USD prices; null when a USD price could not be read. */
  readonly price: Ratio | null;
};

/** What the store knows about the pool's books (docs/spec/lifecycle.md#reconciliation). */
export interface AccountingStatus {
  /** Completed swaps whose payout update id, fee entries or reserve movements are missing. */
  readonly incompleteCompletedSwaps: number;
  /** Whether the latest reconciliation found ledger holdings differing from the store. */
  readonly lastReconciliationMismatch: boolean;
}

/** Everything the guard reads about the pool, gathered by the caller at one moment. */
export interface GuardSnapshot {
  /** Effective reserve of the input instrument; null when missing. */
  readonly inputReserve: Amount | null;
  /** Effective reserve of the output instrument; null when missing. */
  readonly outputReserve: Amount | null;
  /** Sum of the pool's outputs of this instrument in the trailing hour, this trade excluded. */
  readonly trailingHourOutputs: Amount;
  /**
   * Output reserve when the trailing hour began (for a pool funded within the hour, when it was
   * funded); null when the store cannot tell, which fails closed.
   */
  readonly outputReserveAtWindowStart: Amount | null;
  /**
   * The pool's reference price, output per unit of input: the exponential moving average of its
   * spot price (price-reference.ts), the quoting process's or the one execution keeps; null when
   * there is none (a pool that never had a price has nothing to deviate from), which skips that
   * check.
   */
  readonly timeWeightedPrice: Ratio | null;
  /** The USD reference; null when the pool has no USD reference on both sides (check skipped). */
  readonly reference: ReferencePrice | null;
  readonly accounting: AccountingStatus;
  /**
   * Set when an input could not be read (a store error); a short name of what failed, such as
   * `store`, which appears in the reason as `input=store`.
   */
  readonly unavailable?: string;
}

/** The trade being judged, as priced by pricing.ts. */
export interface GuardTrade {
  /** The output the swap would pay, rounded down. */
  readonly output: Amount;
  /** `inputAmountAfterPoolFee`, the input that prices the trade. */
  readonly pricedInput: Amount;
}

interface Limits {
  readonly outputReserveShare: Ratio;
  readonly outputVelocityShare: Ratio;
  readonly reservePriceDeviation: Ratio;
  readonly referencePriceDeviation: Ratio;
  readonly referencePriceAgeMs: number;
}

/** One more than the largest number of units a Numeric 10 value can hold. */
const NUMERIC_UNITS_LIMIT = 10n ** BigInt(AMOUNT_INTEGER_DIGITS_MAX + AMOUNT_DECIMALS);
/** Shares and deviations in reasons: 4 decimals, rounded up so an excess never prints as the limit. */
const REASON_DECIMALS = 4;

/**
 * The guard's verdict for `trade` against `snapshot`: null when the swap is clear. Never throws
 * for inputs of the declared types; anything it cannot judge fails closed.
 */
export function evaluateSettlementSafety(
  snapshot: GuardSnapshot,
  trade: GuardTrade,
  thresholds: Partial<GuardThresholds> = {},
): SettlementSafety | null {
  const limits = resolveLimits(thresholds);
  if (isVerdict(limits)) return limits;
  const unreadable = unreadableInput(snapshot, limits);
  if (unreadable) return unreadable;
  const reserves = validReserves(snapshot, trade);
  if (isVerdict(reserves)) return reserves;
  return (
    incompleteAccounting(snapshot.accounting) ??
    outputShareExceeded(reserves.output, trade.output, limits.outputReserveShare) ??
    velocityExceeded(snapshot, trade.output, limits.outputVelocityShare) ??
    reservePriceDeviation(
      reserves,
      trade,
      snapshot.timeWeightedPrice,
      limits.reservePriceDeviation,
    ) ??
    referencePriceDeviation(reserves, trade, snapshot.reference, limits.referencePriceDeviation)
  );
}

function isVerdict(value: object): value is SettlementSafety {
  return 'code' in value;
}

function verdict(code: SettlementSafetyCode, reason: string, message: string): SettlementSafety {
  return { code, reason, message };
}

function unavailable(reason: string): SettlementSafety {
  return verdict(
    'settlement_safety_guard_unavailable',
    reason,
    'The settlement-safety guard cannot read or trust one of its inputs, so it blocks swaps on this pool until it can.',
  );
}

/**
 * The limits of each thresholds object, worked out once: a pool's thresholds are read with the
 * pool and judged against on every quote of it, and turning four numbers into ratios each time
 * was a measurable share of a quote. Keyed by the object, so a new reading is worked out anew;
 * thresholds are never changed in place (they are readonly, replaced on each read).
 */
const resolvedLimits = new WeakMap<Partial<GuardThresholds>, Limits | SettlementSafety>();

function resolveLimits(overrides: Partial<GuardThresholds>): Limits | SettlementSafety {
  let resolved = resolvedLimits.get(overrides);
  if (resolved === undefined) {
    resolved = limitsOf(overrides);
    resolvedLimits.set(overrides, resolved);
  }
  return resolved;
}

function limitsOf(overrides: Partial<GuardThresholds>): Limits | SettlementSafety {
  const ageMs = given(overrides, 'referencePriceAgeMaxMs');
  if (!Number.isFinite(ageMs) || ageMs < 0) return unavailable('threshold=referencePriceAgeMaxMs');
  const outputReserveShare = readLimit(given(overrides, 'outputReserveShareMax'));
  const outputVelocityShare = readLimit(given(overrides, 'outputVelocityShareMax'));
  const reservePriceDeviation = readLimit(given(overrides, 'reservePriceDeviationMax'));
  const referencePriceDeviation = readLimit(given(overrides, 'referencePriceDeviationMax'));
  if (!outputReserveShare) return unavailable('threshold=outputReserveShareMax');
  if (!outputVelocityShare) return unavailable('threshold=outputVelocityShareMax');
  if (!reservePriceDeviation) return unavailable('threshold=reservePriceDeviationMax');
  if (!referencePriceDeviation) return unavailable('threshold=referencePriceDeviationMax');
  return {
    outputReserveShare,
    outputVelocityShare,
    reservePriceDeviation,
    referencePriceDeviation,
    referencePriceAgeMs: ageMs,
  };
}

// A module-level function rather than a closure: this runs for every quote.
function given(overrides: Partial<GuardThresholds>, key: keyof GuardThresholds): number {
  return overrides[key] ?? DEFAULT_GUARD_THRESHOLDS[key];
}

/** A misconfigured limit must not throw on the payout path; it fails closed instead. */
function readLimit(value: number): Ratio | null {
  try {
    return ratioFromNumber(value);
  } catch {
    return null;
  }
}

function unreadableInput(snapshot: GuardSnapshot, limits: Limits): SettlementSafety | null {
  if (snapshot.unavailable !== undefined) {
    const name = snapshot.unavailable.trim().replace(/\s+/g, '_');
    return unavailable(`input=${name.length > 0 ? name : 'unknown'}`);
  }
  const swaps = snapshot.accounting.incompleteCompletedSwaps;
  if (!Number.isSafeInteger(swaps) || swaps < 0) return unavailable('input=accounting');
  if (snapshot.outputReserveAtWindowStart === null) {
    return unavailable('input=outputReserveAtWindowStart');
  }
  if (snapshot.timeWeightedPrice?.numerator === 0n) return unavailable('timeWeightedPrice=0');
  return snapshot.reference ? unusableReference(snapshot.reference, limits) : null;
}

function unusableReference(reference: ReferencePrice, limits: Limits): SettlementSafety | null {
  if (reference.price === null) return unavailable('input=referencePrice');
  if (reference.price.numerator === 0n) return unavailable('referencePrice=0');
  const ageMs = 'ageMs' in reference ? reference.ageMs : reference.nowMs - reference.observedAtMs;
  if (Number.isNaN(ageMs)) return unavailable('input=referencePriceAge');
  // A reference dated slightly ahead of our clock is fresh, not stale: only age is the risk.
  if (ageMs > limits.referencePriceAgeMs) {
    const shown = Number.isFinite(ageMs) ? Math.ceil(ageMs) : ageMs;
    return unavailable(`referencePriceAgeMs=${shown} limit=${limits.referencePriceAgeMs}`);
  }
  return null;
}

/** The reserves once both are known and can price this trade, or the verdict why not. */
function validReserves(snapshot: GuardSnapshot, trade: GuardTrade): Reserves | SettlementSafety {
  const output = snapshot.outputReserve;
  if (output === null) return invalidOutputReserve('outputReserve=missing');
  if (output.isZero()) return invalidOutputReserve('outputReserve=0');
  if (output.lt(trade.output)) {
    return invalidOutputReserve(`outputReserve=${output} output=${trade.output}`);
  }
  const input = snapshot.inputReserve;
  if (trade.output.isZero()) return invalidExecutionPrice('output=0');
  if (trade.pricedInput.isZero()) return invalidExecutionPrice('pricedInput=0');
  if (input === null) return invalidExecutionPrice('inputReserve=missing');
  if (input.isZero()) return invalidExecutionPrice('inputReserve=0');
  if (!isRepresentable(executionRate(trade.output, trade.pricedInput))) {
    return invalidExecutionPrice(
      `rate=unrepresentable output=${trade.output} pricedInput=${trade.pricedInput}`,
    );
  }
  return { input, output };
}

/** A rate the wire can carry: positive and within Numeric 10 once rounded down. */
function isRepresentable(rate: Ratio): boolean {
  const units = divide(rate.numerator * AMOUNT_SCALE, rate.denominator, 'down');
  return units > 0n && units < NUMERIC_UNITS_LIMIT;
}

function invalidOutputReserve(reason: string): SettlementSafety {
  return verdict(
    'invalid_output_reserve',
    reason,
    "The pool's output reserve is missing, empty or smaller than the output of this swap.",
  );
}

function invalidExecutionPrice(reason: string): SettlementSafety {
  return verdict(
    'invalid_execution_price',
    reason,
    "This swap's price or output is zero or cannot be represented.",
  );
}

function incompleteAccounting(accounting: AccountingStatus): SettlementSafety | null {
  const { incompleteCompletedSwaps, lastReconciliationMismatch } = accounting;
  if (incompleteCompletedSwaps === 0 && !lastReconciliationMismatch) return null;
  return verdict(
    'incomplete_completed_accounting',
    `incompleteCompletedSwaps=${incompleteCompletedSwaps} reconciliationMismatch=${lastReconciliationMismatch}`,
    'The pool has completed swaps with incomplete accounting or an unresolved reconciliation mismatch; it is paused until an operator resolves it.',
  );
}

function outputShareExceeded(
  reserve: Amount,
  output: Amount,
  limit: Ratio,
): SettlementSafety | null {
  const share = ratio(output.units, reserve.units);
  if (compareRatio(share, limit) <= 0) return null;
  return verdict(
    'output_reserve_share_exceeded',
    exceeded('share', share, limit),
    `The output is more than ${percent(limit)} of the pool's output reserve; try a smaller amount.`,
  );
}

function velocityExceeded(
  snapshot: GuardSnapshot,
  output: Amount,
  limit: Ratio,
): SettlementSafety | null {
  const base = snapshot.outputReserveAtWindowStart?.units ?? 0n;
  // Plain integers: the sum may leave the Numeric 10 range, which must not throw here.
  const moved = snapshot.trailingHourOutputs.units + output.units;
  if (base === 0n) {
    return verdict(
      'output_velocity_exceeded',
      `windowStartReserve=0 limit=${limitText(limit)}`,
      velocityMessage(limit),
    );
  }
  const share = ratio(moved, base);
  if (compareRatio(share, limit) <= 0) return null;
  return verdict(
    'output_velocity_exceeded',
    exceeded('share', share, limit),
    velocityMessage(limit),
  );
}

function velocityMessage(limit: Ratio): string {
  return `Outputs of this pool in the last hour, this swap included, would exceed ${percent(limit)} of its output reserve; try a smaller amount or later.`;
}

/**
 * The pool's price after the trade against `base` (docs/spec/guard.md#deviation): a trade that
 * ends within the band passes, and so does one that ends nearer `base` than the pool is now (it
 * heals the deviation, even if not all of it); one that ends outside the band and no nearer is
 * refused. The deviation is `max(p, base) / min(p, base) − 1`, the same read in either direction.
 */
function deviationAfter(
  reserves: Reserves,
  trade: GuardTrade,
  base: Ratio,
  limit: Ratio,
): Ratio | null {
  const after = ratio(
    reserves.output.units - trade.output.units,
    reserves.input.units + trade.pricedInput.units,
  );
  // An output that empties the reserve was refused as invalid before this check runs.
  if (after.numerator === 0n) return null;
  const ending = priceDeviation(after, base);
  if (compareRatio(ending, limit) <= 0) return null;
  if (compareRatio(ending, priceDeviation(spotPrice(reserves), base)) < 0) return null;
  return ending;
}

function reservePriceDeviation(
  reserves: Reserves,
  trade: GuardTrade,
  timeWeightedPrice: Ratio | null,
  limit: Ratio,
): SettlementSafety | null {
  if (timeWeightedPrice === null) return null;
  const deviation = deviationAfter(reserves, trade, timeWeightedPrice, limit);
  if (deviation === null) return null;
  return deviationVerdict(
    'reserve_price_deviation_exceeded',
    deviation,
    limit,
    `This swap would move the pool's price ${percentOf(deviation)} from its reference price, beyond the ${percent(limit)} limit; a smaller swap, or one in the other direction, passes.`,
  );
}

function referencePriceDeviation(
  reserves: Reserves,
  trade: GuardTrade,
  reference: ReferencePrice | null,
  limit: Ratio,
): SettlementSafety | null {
  if (!reference?.price) return null;
  const deviation = deviationAfter(reserves, trade, reference.price, limit);
  if (deviation === null) return null;
  return deviationVerdict(
    'reference_price_deviation_exceeded',
    deviation,
    limit,
    `This swap would leave the pool's price ${percentOf(deviation)} from the USD reference price, beyond the ${percent(limit)} limit; a smaller swap, or one in the other direction, passes.`,
  );
}

function deviationVerdict(
  code: SettlementSafetyCode,
  deviation: Ratio,
  limit: Ratio,
  message: string,
): SettlementSafety {
  return {
    ...verdict(code, exceeded('deviation', deviation, limit), message),
    deviation: formatRatio(deviation, 'up', REASON_DECIMALS),
    limit: limitText(limit),
  };
}

/** A deviation in percent for people, to 2 decimals rounded up, as the reason rounds. */
function percentOf(deviation: Ratio): string {
  return `${formatRatio(ratio(deviation.numerator * 100n, deviation.denominator), 'up', 2)}%`;
}

function exceeded(name: string, value: Ratio, limit: Ratio): string {
  return `${name}=${formatRatio(value, 'up', REASON_DECIMALS)} limit=${limitText(limit)}`;
}

function limitText(limit: Ratio): string {
  return formatRatio(limit, 'down');
}

function percent(limit: Ratio): string {
  return `${formatRatio(ratio(limit.numerator * 100n, limit.denominator), 'down')}%`;
}
