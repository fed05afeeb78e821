/**
 * The pool's own reference price judged at execution (docs/spec/guard.md#where-the-guard-runs),
 * through the engine on the local ledger: a swap quoted while the pool stood at its reference,
 * whose execution after another swap moved the pool would leave the price beyond the band, is
 * refunded with `reserve_price_deviation_exceeded` (the first of the two, alone, completed); and
 * a swap toward the reference completes from the moved pool. The reference each execution leaves
 * is in the store.
 */
import {
  Amount,
  DEFAULT_GUARD_THRESHOLDS,
  priceDeviation,
  ratioToNumber,
  referencePriceAt,
} from '@poolparty/core';
import { getPool, getPoolPriceReference } from '@poolparty/store';
import { describe, expect, it } from 'vitest';
import { type EngineHarness, useEngineWorld } from '../testing/engine.js';

const world = useEngineWorld();

/** 20 000 Amulet into 1 000 000 moves the price about 4 %: within the 5 % band alone, not twice. */
const MOVE = '20000';

async function trader(h: EngineHarness, hint: string, funds: readonly [string, string]) {
  const [amulet, usdcx] = funds;
  const held: [typeof h.amulet, string][] = [];
  if (amulet !== '0') held.push([h.amulet, amulet]);
  if (usdcx !== '0') held.push([h.usdcx, usdcx]);
  return h.newParty(hint, [h.amulet, h.usdcx], held);
}

async function spotDeviation(h: EngineHarness): Promise<number> {
  const pool = await getPool(h.db, 'amulet-usdcx');
  const reference = await getPoolPriceReference(h.db, 'amulet-usdcx');
  if (pool === null || reference === null) throw new Error('no pool or no reference');
  const spot = {
    numerator: pool.accounting.reserveB.units,
    denominator: pool.accounting.reserveA.units,
  };
  return ratioToNumber(priceDeviation(spot, referencePriceAt(reference, h.clock.now().getTime())));
}

describe("the pool's reference at execution", () => {
  it('refunds a swap quoted before another moved the pool, when it would leave the band', async () => {
    const h = await world.harness();
    await h.startEngine();
    const carol = await trader(h, 'carol', ['30000', '0']);
    const dave = await trader(h, 'dave', ['30000', '0']);
    // Both quoted against the pool at rest: each alone ends about 4 % from the reference.
    const late = await h.createIntent(carol, h.amulet, MOVE, { slippageTolerance: 0.2 });
    const first = await h.createIntent(dave, h.amulet, MOVE, { slippageTolerance: 0.2 });
    await h.deposit(dave, h.amulet, MOVE, { reference: first.depositReference });
    await h.waitForStatus(first.intentId, 'completed');
    const moved = await spotDeviation(h);
    expect(moved).toBeGreaterThan(0.03);
    expect(moved).toBeLessThan(DEFAULT_GUARD_THRESHOLDS.reservePriceDeviationMax);
    const reservesOf = async () => {
      const { reserveA, reserveB } = (await getPool(h.db, 'amulet-usdcx'))?.accounting ?? {};
      return { reserveA, reserveB };
    };
    const afterFirst = await reservesOf();

    await h.deposit(carol, h.amulet, MOVE, { reference: late.depositReference });
    const ended = await h.waitForStatus(late.intentId, 'failed');
    expect(ended.failureReason?.code).toBe('reserve_price_deviation_exceeded');
    expect(ended.failureReason?.message).toMatch(/from its reference price, beyond the 5% limit/);
    expect(ended.refund?.amount).toEqual(Amount.parse(MOVE).sub(late.networkFeeAmount));
    expect(ended.payout).toBeNull();
    // The refund left the reserves where the first swap put them.
    expect(await reservesOf()).toEqual(afterFirst);
    await h.booksMatchLedger();
  });

  it('completes a swap toward the reference from the moved pool', async () => {
    const h = await world.harness();
    await h.startEngine();
    const dave = await trader(h, 'dave', ['30000', '0']);
    const erin = await trader(h, 'erin', ['0', '5000']);
    const first = await h.createIntent(dave, h.amulet, MOVE);
    await h.deposit(dave, h.amulet, MOVE, { reference: first.depositReference });
    await h.waitForStatus(first.intentId, 'completed');
    const reference = await getPoolPriceReference(h.db, 'amulet-usdcx');
    expect(reference).not.toBeNull();
    const moved = await spotDeviation(h);

    // USDCx in raises the Amulet price back toward the reference.
    const back = await h.createIntent(erin, h.usdcx, '2800');
    await h.deposit(erin, h.usdcx, '2800', { reference: back.depositReference });
    await h.waitForStatus(back.intentId, 'completed');
    expect(await spotDeviation(h)).toBeLessThan(moved);
    await h.booksMatchLedger();
  });
});
