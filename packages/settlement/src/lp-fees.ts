/**
 * The LP fees liquidity positions earn (docs/spec/liquidity.md#fees-earned), in the store: the
 * pool's fee growth moved by executed swaps, and a position's fee state settled before its units
 * change. The arithmetic is core's (position-fees.ts); these read under the pool's lock and write.
 */
import {
  type Amount,
  assert,
  feeGrowthAfterSwaps,
  freshPositionFees,
  type PositionFeeState,
  type Side,
  settlePositionFees,
} from '@poolparty/core';
import { getPoolUnits, getPosition, type Queryable, setLpFeeGrowth } from '@poolparty/store';

/** One executed swap's LP fee, which joined the reserve of its input side. */
export interface LpFeeTaken {
  readonly side: Side;
  readonly lpFee: Amount;
}

/**
 * Credits the swaps' LP fees to the pool's positions by moving its fee growth. Every execution
 * path calls it in the transaction that moves those LP fees into the reserves, holding the pool's
 * lock, so the growth never counts a fee the reserves do not hold, nor misses one.
 */
export async function creditLpFees(
  tx: Queryable,
  poolId: string,
  swaps: readonly LpFeeTaken[],
  now: Date,
): Promise<void> {
  if (!swaps.some((swap) => swap.lpFee.isPositive())) return;
  const units = await getPoolUnits(tx, poolId);
  assert(units !== null, `unknown pool ${poolId}`);
  const growth = feeGrowthAfterSwaps(units.lpFeeGrowth, swaps, units.lpSupply);
  await setLpFeeGrowth(tx, poolId, growth, now);
}

/**
 * The provider's fee state in the pool settled at the growth now, for the write that changes its
 * units: what the units held so far earned is accrued; a new position starts at the growth now.
 */
export async function settledPositionFees(
  tx: Queryable,
  poolId: string,
  providerParty: string,
): Promise<PositionFeeState> {
  const units = await getPoolUnits(tx, poolId);
  assert(units !== null, `unknown pool ${poolId}`);
  const held = await getPosition(tx, poolId, providerParty);
  if (held === null) return freshPositionFees(units.lpFeeGrowth);
  return settlePositionFees(held.fees, held.units, units.lpFeeGrowth);
}
