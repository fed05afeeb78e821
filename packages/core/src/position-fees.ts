/**
 * The LP fees a liquidity position earned (docs/spec/liquidity.md#fees-earned), accounted as
 * concentrated-liquidity pools account them: per pool and side, the LP fee per unit accrued since
 * the pool opened (its fee growth); per position, the growth it last counted up to and what it
 * accrued before. A position earns `units × (growth − last)` on top of what it accrued, so one
 * write per swap credits every position at once, and a position opened after a swap starts at
 * the growth that swap left and earns nothing from it.
 *
 * Fees earned are a report, not a balance: the LP fee joined the reserves, so a burn pays it out
 * with the units' share of them. Pure, over exact integers.
 */
import { Amount } from './amount.js';
import type { Side } from './pool-books.js';

/**
 * The growth's decimals: an LP fee per unit is kept to 10^-38. A pool's units are amounts of 10
 * decimals with at most 28 integer digits (under 10^38 of the smallest unit), so what one swap's
 * rounding leaves out costs even a position holding every unit less than one smallest unit.
 */
export const FEE_GROWTH_DECIMALS = 38;
export const FEE_GROWTH_SCALE = 10n ** BigInt(FEE_GROWTH_DECIMALS);

/** Per side, the LP fee per unit since the pool opened, in 10^-38 of a token per unit. */
export interface FeeGrowth {
  readonly a: bigint;
  readonly b: bigint;
}

export const NO_FEE_GROWTH: FeeGrowth = { a: 0n, b: 0n };

/** What a position counted of its pool's fees when its units last changed. */
export interface PositionFeeState {
  /** The pool's growth when the position's units last changed. */
  readonly growthLast: FeeGrowth;
  /** What it earned up to then, per side. */
  readonly accruedA: Amount;
  readonly accruedB: Amount;
}

/** A position with nothing counted yet: one that opens now starts at the pool's growth. */
export function freshPositionFees(growth: FeeGrowth): PositionFeeState {
  return { growthLast: growth, accruedA: Amount.ZERO, accruedB: Amount.ZERO };
}

/**
 * The growth once a swap's LP fee joined the reserves of `side`: `lpFee / lpSupply` more per
 * unit, rounded down so the positions together are never credited more than the pool took. The
 * supply includes the locked units, whose share belongs to no one and stays in the pool. A pool
 * without units has nobody to credit: its growth stands.
 */
export function feeGrowthAfterSwap(
  growth: FeeGrowth,
  swap: { readonly side: Side; readonly lpFee: Amount },
  lpSupply: Amount,
): FeeGrowth {
  if (!lpSupply.isPositive() || !swap.lpFee.isPositive()) return growth;
  const added = (swap.lpFee.units * FEE_GROWTH_SCALE) / lpSupply.units;
  return swap.side === 'a'
    ? { a: growth.a + added, b: growth.b }
    : { a: growth.a, b: growth.b + added };
}

/** `feeGrowthAfterSwap` for the swaps of a batch in order: the supply stands through a batch. */
export function feeGrowthAfterSwaps(
  growth: FeeGrowth,
  swaps: readonly { readonly side: Side; readonly lpFee: Amount }[],
  lpSupply: Amount,
): FeeGrowth {
  return swaps.reduce((next, swap) => feeGrowthAfterSwap(next, swap, lpSupply), growth);
}

/** What `units` earned between two growths of one side, rounded down (the pool keeps the rest). */
function earnedBetween(units: Amount, from: bigint, to: bigint): Amount {
  if (to <= from) return Amount.ZERO;
  return Amount.fromUnits((units.units * (to - from)) / FEE_GROWTH_SCALE);
}

/** The LP fees earned, per side, as tokens of that side. */
export interface FeesEarned {
  readonly a: Amount;
  readonly b: Amount;
}

/** What the position earned up to `growth`: what it accrued plus its units' share since. */
export function feesEarned(state: PositionFeeState, units: Amount, growth: FeeGrowth): FeesEarned {
  return {
    a: state.accruedA.add(earnedBetween(units, state.growthLast.a, growth.a)),
    b: state.accruedB.add(earnedBetween(units, state.growthLast.b, growth.b)),
  };
}

/**
 * The position's fee state settled at `growth`, before its units change (a mint, a burn, the
 * pool's opening): what the units held so far earned is accrued, and counting starts again from
 * the growth now, so the units that join or leave take no share of fees from before.
 */
export function settlePositionFees(
  state: PositionFeeState,
  units: Amount,
  growth: FeeGrowth,
): PositionFeeState {
  const earned = feesEarned(state, units, growth);
  return { growthLast: growth, accruedA: earned.a, accruedB: earned.b };
}

/** The wire and column form of a growth: its exact decimal, e.g. `0.00000000000000000000000000000000000125`. */
export function feeGrowthToDecimal(value: bigint): string {
  const integer = value / FEE_GROWTH_SCALE;
  const fraction = (value % FEE_GROWTH_SCALE).toString().padStart(FEE_GROWTH_DECIMALS, '0');
  const trimmed = fraction.replace(/0+$/, '');
  return trimmed.length > 0 ? `${integer}.${trimmed}` : `${integer}`;
}

const GROWTH_DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** Parses a growth as the store writes it (at most 38 decimals); throws on anything else. */
export function feeGrowthFromDecimal(text: string): bigint {
  const match = GROWTH_DECIMAL.exec(text);
  const fraction = match?.[2] ?? '';
  if (match === null || fraction.length > FEE_GROWTH_DECIMALS) {
    throw new Error(`not a fee growth: ${text}`);
  }
  return (
    BigInt(match[1] as string) * FEE_GROWTH_SCALE +
    BigInt(fraction.padEnd(FEE_GROWTH_DECIMALS, '0'))
  );
}
