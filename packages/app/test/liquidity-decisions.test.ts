/**
 * The pure decisions behind the liquidity forms: the figures shown before anything is sent are
 * the service's own arithmetic (core's `liquidity.ts`, through `@poolparty/core/liquidity`) for
 * any pool and amounts, over the pool as `pools.list` gives it; the steps of an intent, the sides
 * still to send and the deposit of a side.
 */
import { Amount, type LiquidityIntent, planMint } from '@poolparty/core';
import { hasPrice, minimumUnits, pairedAmount, unitsOfShare } from '@poolparty/core/liquidity';
import type { Pool } from '@poolparty/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  depositOf,
  missingSides,
  openIntentOf,
  stepsOf,
} from '../src/liquidity/intent-progress-model.js';
import { poolLiquidity, previewMint } from '../src/liquidity/liquidity-preview.js';

const amount = fc.bigInt({ min: 1n, max: 10n ** 20n }).map((units) => Amount.fromUnits(units));
const pool = fc
  .record({ reserveA: amount, reserveB: amount, supply: amount })
  .map((liquidity) => liquidity);
/** What a computation gives, or that it refuses (an amount beyond Numeric 10's range). */
function outcome(compute: () => Amount | null | undefined): string {
  try {
    return compute()?.toString() ?? 'none';
  } catch (error) {
    return error instanceof Error ? `refused (${error.name})` : String(error);
  }
}

const EMPTY = { reserveA: Amount.ZERO, reserveB: Amount.ZERO, supply: Amount.ZERO };

describe('the liquidity figures agree with the service’s arithmetic', () => {
  it('mints as core does, into a priced pool or a new one', () => {
    fc.assert(
      fc.property(fc.oneof(pool, fc.constant(EMPTY)), amount, amount, (p, a, b) => {
        expect(outcome(() => previewMint(p, a, b)?.units)).toBe(
          outcome(() => {
            const plan = planMint(p, a, b);
            return plan.kind === 'mint' ? plan.minted : null;
          }),
        );
      }),
    );
  });
  it('reads the pool as pools.list gives it', () => {
    const listed = {
      tokenA: { name: 'Amulet', admin: 'DSO::12', reserve: '100000' },
      tokenB: { name: 'USDCx', admin: 'circle::12', reserve: '14500' },
      lpSupply: '38078.8655293',
    } as Pool;
    const liquidity = poolLiquidity(listed);
    expect(liquidity.reserveA.toString()).toBe('100000');
    expect(liquidity.reserveB.toString()).toBe('14500');
    expect(liquidity.supply.toString()).toBe('38078.8655293');
    expect(hasPrice(liquidity)).toBe(true);
    expect(hasPrice(poolLiquidity({ ...listed, lpSupply: '0' }))).toBe(false);
  });
  it('prices a first deposit from both sides, less the locked units', () => {
    const a = Amount.parse('1000');
    const b = Amount.parse('145');
    const plan = planMint(EMPTY, a, b);
    const preview = previewMint(EMPTY, a, b);
    expect(plan.kind === 'mint' && plan.minted.toString()).toBe(preview?.units.toString());
    expect(pairedAmount(EMPTY, 'a', a)).toBeNull();
    expect(preview?.shareAfter).toBeGreaterThan(0.999_999);
  });
  it('counts units already held in the share after', () => {
    const p = { reserveA: Amount.of(100), reserveB: Amount.of(100), supply: Amount.of(100) };
    expect(previewMint(p, Amount.of(100), Amount.of(100), Amount.of(50))?.shareAfter).toBe(0.75);
  });
  it('takes slippage and shares off as the service does', () => {
    const units = Amount.parse('38.0788655293');
    expect(minimumUnits(units, 50).toString()).toBe('37.8884712016');
    expect(unitsOfShare(units, 5_000).toString()).toBe('19.0394327646');
  });
});

function intent(over: Partial<LiquidityIntent> = {}): LiquidityIntent {
  return {
    liquidityIntentId: 'liq_01',
    poolId: 'amulet-usdcx',
    status: 'pending',
    providerParty: 'lp::12',
    depositAddress: 'pool-lp::12',
    depositReference: 'pp-REF',
    tokenA: 'Amulet',
    tokenAAdmin: 'DSO::12',
    tokenB: 'USDCx',
    tokenBAdmin: 'circle::12',
    expected: { a: '100', b: '14.5' },
    expectedUnits: '38',
    minimumUnits: '37',
    slippageBps: 50,
    deposits: [],
    minted: null,
    failure: null,
    instructions: '',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-02T00:00:00.000Z',
    completedAt: null,
    ...over,
  };
}

describe('an intent’s progress', () => {
  it('reaches the steps up to its state, and ends elsewhere after the first', () => {
    expect(stepsOf('partial').map((s) => [s.status, s.reached, s.current])).toEqual([
      ['pending', true, false],
      ['partial', true, true],
      ['joining', false, false],
      ['completed', false, false],
    ]);
    expect(stepsOf('cancelled').map((s) => s.status)).toEqual(['pending', 'cancelled']);
  });
  it('asks for the sides that have not arrived, only while deposits are taken', () => {
    const arrivedA = {
      side: 'a' as const,
      amount: '100',
      status: 'forwarding' as const,
      updateId: 'u1',
      receivedAt: '2026-01-01T00:00:01.000Z',
    };
    expect(missingSides(intent())).toEqual(['a', 'b']);
    expect(missingSides(intent({ status: 'partial', deposits: [arrivedA] }))).toEqual(['b']);
    expect(missingSides(intent({ status: 'cancelled' }))).toEqual([]);
  });
  it('sends each side to the LP party with the reference, under an id of its own', () => {
    expect(depositOf(intent(), 'b')).toEqual({
      intentId: 'liq_01-b',
      depositAddress: 'pool-lp::12',
      depositReference: 'pp-REF',
      expectedAmount: '14.5',
      inputToken: 'USDCx',
      inputTokenAdmin: 'circle::12',
      expiresAt: '2026-01-02T00:00:00.000Z',
    });
  });
  it('finds the open intent of a pool among the party’s', () => {
    const done = intent({ liquidityIntentId: 'liq_02', status: 'completed' });
    expect(openIntentOf([done, intent()], 'amulet-usdcx')?.liquidityIntentId).toBe('liq_01');
    expect(openIntentOf([done], 'amulet-usdcx')).toBeNull();
    expect(openIntentOf([intent()], 'amulet-cbtc')).toBeNull();
  });
});
