/**
 * The LP fees a position earned, through the engine on the seeded local ledger: a swap after a
 * deposit credits the position its share of the swap's LP fee, a provider who joins later takes
 * nothing of the fees before, and a withdrawal keeps what was earned.
 */
import { Amount, type FeesEarned, feesEarned } from '@poolparty/core';
import { getPool, getPosition } from '@poolparty/store';
import { describe, expect, it } from 'vitest';
import {
  completedSwap,
  type EngineHarness,
  type Party,
  SEEDED_POOL_ID,
  useEngineWorld,
} from '../testing/engine.js';
import {
  openHarnessLiquidityIntent,
  waitForLiquidity,
  withdrawWholePosition,
} from '../testing/liquidity.js';

const world = useEngineWorld();

async function provide(h: EngineHarness, hint: string, amountA: string): Promise<Party> {
  const lp = await h.newParty(
    hint,
    [h.amulet, h.usdcx],
    [
      [h.amulet, '100000'],
      [h.usdcx, '10000'],
    ],
  );
  const intent = await openHarnessLiquidityIntent(h, lp, { amountA });
  await h.depositLiquidity(lp, h.amulet, intent.expectedA.toString(), intent.depositReference);
  await h.depositLiquidity(lp, h.usdcx, intent.expectedB.toString(), intent.depositReference);
  await waitForLiquidity(h.db, intent.liquidityIntentId, 'completed');
  return lp;
}

async function earnedBy(h: EngineHarness, lp: Party): Promise<FeesEarned> {
  const [pool, position] = [
    await getPool(h.db, SEEDED_POOL_ID),
    await getPosition(h.db, SEEDED_POOL_ID, lp.partyId),
  ];
  if (pool === null || position === null) throw new Error('no position');
  return feesEarned(position.fees, position.units, pool.lpFeeGrowth);
}

/** `lpFee × units / supply` in smallest units, rounded down, at the pool's supply now. */
async function shareOf(h: EngineHarness, lp: Party, lpFee: Amount): Promise<bigint> {
  const [pool, position] = [
    await getPool(h.db, SEEDED_POOL_ID),
    await getPosition(h.db, SEEDED_POOL_ID, lp.partyId),
  ];
  if (pool === null || position === null) throw new Error('no position');
  return (lpFee.units * position.units.units) / pool.lpSupply.units;
}

describe('the fees a position earned', () => {
  it('credits a swap after a deposit as the LP fee times the share of units, and none of it to a later provider', async () => {
    const h = await world.harness();
    await h.startEngine();
    const first = await provide(h, 'lp-first', '2000');
    expect(await earnedBy(h, first)).toEqual({ a: Amount.ZERO, b: Amount.ZERO });
    const swap = await completedSwap(h);
    const fee = swap.lpFeeAmount;
    expect(fee.isPositive()).toBe(true);
    const share = await shareOf(h, first, fee);
    const earned = await earnedBy(h, first);
    // The growth per unit is rounded down once, then the position's figure: at most one smallest
    // unit below the exact share, and never above it.
    expect(share - earned.a.units).toBeGreaterThanOrEqual(0n);
    expect(share - earned.a.units).toBeLessThanOrEqual(1n);
    expect(earned.b.isZero()).toBe(true);

    const second = await provide(h, 'lp-second', '2000');
    expect(await earnedBy(h, second)).toEqual({ a: Amount.ZERO, b: Amount.ZERO });
    expect(await earnedBy(h, first)).toEqual(earned);
    const next = (await completedSwap(h)).lpFeeAmount;
    const secondEarned = await earnedBy(h, second);
    const secondShare = await shareOf(h, second, next);
    expect(secondShare - secondEarned.a.units).toBeGreaterThanOrEqual(0n);
    expect(secondShare - secondEarned.a.units).toBeLessThanOrEqual(1n);
    const firstNow = await earnedBy(h, first);
    expect(firstNow.a.gt(earned.a)).toBe(true);
  });

  it('keeps what was earned once the position is withdrawn', async () => {
    const h = await world.harness();
    await h.startEngine();
    const lp = await provide(h, 'lp-leaving', '2000');
    await completedSwap(h);
    const earned = await earnedBy(h, lp);
    expect(earned.a.isPositive()).toBe(true);
    await withdrawWholePosition(h, lp);
    expect((await getPosition(h.db, SEEDED_POOL_ID, lp.partyId))?.units).toEqual(Amount.ZERO);
    expect(await earnedBy(h, lp)).toEqual(earned);
    // A swap after the withdrawal credits no units.
    await completedSwap(h);
    expect(await earnedBy(h, lp)).toEqual(earned);
  });
});
